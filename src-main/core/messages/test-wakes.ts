import type { Core } from '../core.js';
import { immediate } from '../db/open.js';
import { AppError } from '../errors/app-error.js';
import { defineUseCase } from '../usecase/define.js';
import { agentHandle, getAgentByPlate } from '../agents/store.js';
import { addAgent, ensureTestRoom, isAgentMember, testRoomOf, touchRoom } from '../rooms/store.js';
import { listWakes, wakeDto } from '../wakes/store.js';
import { withWakeActions } from '../wakes/rules.js';
import { contracts } from '../../../shared/contracts/index.js';
import { sendMessage } from './service.js';

/**
 * Test wakes (docs/wakes.md "Test wakes"): `agent-rooms doctor --wake` and the connect dialog's
 * live test mention one of the caller's own agents in the caller's private "Test wakes" room,
 * found by its owner (rooms/store.ts `ensureTestRoom`), never by a name another owner could give
 * a room of theirs, so test traffic never lands in a working room and nobody else's room gets
 * the agent (docs/security.md).
 */

const TEXT = {
  doctor: 'agent-rooms doctor: this is a test wake. Reply in this room with send_message, one short line saying you got it.',
  connect: 'This is a test wake from the connect dialog. Reply in this room with send_message, one short line saying you got it.',
} as const;

export function startTestWake(core: Core, ownerId: string, input: { plate: string; from?: 'doctor' | 'connect' }) {
  const { db } = core;
  const a = getAgentByPlate(db, input.plate);
  if (!a || a.owner_id !== ownerId) throw new AppError('NOT_FOUND', 'agent not found among your agents');
  if (a.revoked_at !== null) throw new AppError('CONFLICT', 'this agent is revoked');
  const { room, created } = ensureTestRoom(db, ownerId);
  if (!isAgentMember(db, room.id, a.plate)) {
    immediate(db, () => {
      addAgent(db, room.id, a.plate, ownerId);
      touchRoom(db, room.id, ['roster']);
    });
    core.bus.emit({ type: 'members.changed', room: room.id });
  }
  const handle = agentHandle(a);
  const m = sendMessage(core, { kind: 'human', ownerId }, { roomId: room.id, body: TEXT[input.from ?? 'doctor'], mentionTargets: [handle] });
  // A new test room is news for Settings only (it is not in the room list).
  if (created) core.bus.emit({ type: 'rooms.changed', owners: [ownerId] });
  const wake = m.wakes.find((w) => w.plate === a.plate) ?? { plate: a.plate, handle, wake_id: null, status: 'inbox' as const, target: 'pull' as const, reason: 'no wake was queued' };
  return { room_id: room.id, room_name: room.name, message_id: m.message_id, wake };
}

export function listTestWakes(core: Core, ownerId: string, limit: number) {
  const { db } = core;
  const room = testRoomOf(db, ownerId);
  if (!room) return { room_id: null, wakes: [] };
  const handles = new Map<string, string>();
  const rows = listWakes(db, { roomId: room.id, limit }).map(wakeDto);
  const wakes = withWakeActions(db, ownerId, rows).map((w) => {
    if (!handles.has(w.plate)) {
      const a = getAgentByPlate(db, w.plate);
      handles.set(w.plate, a ? agentHandle(a) : w.plate);
    }
    // Only the owner's own agents are ever in the room; the output tails stay the owner's all the same.
    const own = getAgentByPlate(db, w.plate)?.owner_id === ownerId;
    return { ...w, handle: handles.get(w.plate)!, ...(own ? {} : { stdout_tail: null, stderr_tail: null }) };
  });
  return { room_id: room.id, wakes };
}

/** POST /v1/test-wakes {plate, from?}: a test mention of one of your agents in your Test wakes room. */
export const startTestWakeUseCase = defineUseCase({
  route: { contract: contracts.wakes.startTest },
  handler: ({ core, caller }, { body }) => startTestWake(core, caller.ownerId, body),
});

/** GET /v1/test-wakes: your recent test wakes and how each ended (Settings, "Test wakes"). */
export const listTestWakesUseCase = defineUseCase({
  route: { contract: contracts.wakes.tests },
  handler: ({ core, caller }, { query }) => listTestWakes(core, caller.ownerId, query.limit ?? 20),
});
