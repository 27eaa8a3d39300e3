import { describe, it, expect, afterEach } from 'vitest';
import { notificationFor, NotificationGate } from '../../src-main/electron/notify.js';
import { openMemoryCore, type MemoryCore } from '../helpers/memory-core.js';
import { createOwner } from '../../src-main/core/owners/store.js';
import { createRoom, addAgent } from '../../src-main/core/rooms/store.js';
import { createAgent } from '../../src-main/core/agents/store.js';
import { sendMessage } from '../../src-main/core/messages/service.js';
import { ALL_SCOPES_MASK } from '../../shared/scopes.js';

const ME = 'own_me';
const OTHER = 'own_other';

const wake = (over: Record<string, unknown> = {}) => ({
  wake_id: 'wake_1',
  plate: 'ADA-AGT-7K2M9Q',
  room: 'room_1',
  trigger: 'mention',
  status: 'failed',
  host: 'claude-code',
  reason: 'runner exited with code 2',
  exit_code: 2,
  ...over,
});

const task = (over: Record<string, unknown> = {}) => ({
  task_id: 'task_1',
  room: 'room_1',
  title: 'Ship the login page',
  assignee: '@builder(ada)',
  status: 'blocked',
  reason: 'waiting for the API keys',
  ...over,
});

const message = (over: Record<string, unknown> = {}) => ({
  message_id: 'msg_1',
  room: 'room_1',
  sender: { kind: 'agent', plate: 'ADA-AGT-7K2M9Q', owner_id: ME, handle: '@builder(ada)', name: 'builder' },
  body: '@ada the deploy needs your approval',
  mentions: [{ kind: 'human', handle: '@ada', owner_id: ME }],
  ...over,
});

describe('notifications for what needs the human', () => {
  it('a failed wake, by itself or wrapped, one or many', () => {
    const n = notificationFor({ type: 'wakes.changed', room: 'room_1', data: wake() }, ME);
    expect(n).toEqual({ title: 'Wake failed: ADA-AGT-7K2M9Q', body: 'ADA-AGT-7K2M9Q could not be woken (mention): runner exited with code 2' });
    expect(notificationFor({ type: 'wakes.changed', data: { wake: wake({ handle: '@builder(ada)' }) } }, ME)?.title).toBe('Wake failed: @builder(ada)');
    expect(notificationFor({ type: 'wakes.changed', data: { wakes: [wake({ status: 'handled' }), wake({ reason: null })] } }, ME)?.body).toContain('exit code 2');
    expect(notificationFor({ type: 'wakes.changed', data: wake({ status: 'running' }) }, ME)).toBeNull();
    expect(notificationFor({ type: 'wakes.changed', data: wake({ status: 'handled' }) }, ME)).toBeNull();
  });

  it('a task blocked or failed, but not one that moves on', () => {
    expect(notificationFor({ type: 'board.changed', room: 'room_1', data: { task: task() } }, ME)).toEqual({
      title: 'Task is blocked: Ship the login page',
      body: '@builder(ada): waiting for the API keys',
    });
    const failed = notificationFor({ type: 'board.changed', data: task({ status: 'failed', reason: null, assignee: { handle: '@tester(ada)' } }) }, ME);
    expect(failed).toEqual({ title: 'Task failed: Ship the login page', body: '@tester(ada): No reason given.' });
    for (const status of ['todo', 'doing', 'done', 'cancelled']) {
      expect(notificationFor({ type: 'board.changed', data: { task: task({ status }) } }, ME)).toBeNull();
    }
  });

  it("a mention of this owner, not of someone else, not the owner's own message", () => {
    expect(notificationFor({ type: 'message.created', room: 'room_1', data: message() }, ME)).toEqual({
      title: '@builder(ada) mentioned you',
      body: '@ada the deploy needs your approval',
    });
    expect(notificationFor({ type: 'message.created', data: message({ mentions: [{ kind: 'human', handle: '@bob', owner_id: OTHER }] }) }, ME)).toBeNull();
    expect(notificationFor({ type: 'message.created', data: message({ mentions: [{ kind: 'agent', handle: '@x(ada)', plate: 'P', owner_id: ME }] }) }, ME)).toBeNull();
    expect(notificationFor({ type: 'message.created', data: message({ sender: { kind: 'human', owner_id: ME, handle: '@ada', name: 'Ada' } }) }, ME)).toBeNull();
    const long = notificationFor({ type: 'message.created', data: message({ body: 'x'.repeat(5000) }) }, ME)!;
    expect(long.body.length).toBeLessThanOrEqual(180);
  });

  it('events addressed to other owners are not ours', () => {
    expect(notificationFor({ type: 'board.changed', owners: [OTHER], data: { task: task() } }, ME)).toBeNull();
    expect(notificationFor({ type: 'board.changed', owners: [OTHER, ME], data: { task: task() } }, ME)).not.toBeNull();
    expect(notificationFor({ type: 'wakes.changed', data: wake({ owner_id: OTHER }) }, ME)).toBeNull();
  });

  it('tolerates unknown and malformed shapes', () => {
    const junk: unknown[] = [
      null,
      undefined,
      42,
      'wakes.changed',
      {},
      { type: 7 },
      { type: 'rooms.changed', data: task() },
      { type: 'wakes.changed' },
      { type: 'wakes.changed', data: 'failed' },
      { type: 'wakes.changed', data: [null, 3, 'x'] },
      { type: 'wakes.changed', data: { wake: 'failed' } },
      { type: 'board.changed', data: { tasks: null } },
      { type: 'board.changed', data: { lanes: [{ tasks: [] }] } },
      { type: 'message.created', data: { mentions: 'ada' } },
      { type: 'message.created', data: { message: { mentions: [null, 1] } } },
      { type: 'message.created', data: message({ sender: null }) },
    ];
    for (const e of junk) {
      const n = notificationFor(e, ME);
      if (n) expect(typeof n.title).toBe('string');
    }
    expect(junk.slice(0, 15).map((e) => notificationFor(e, ME))).toEqual(Array(15).fill(null));
    expect(notificationFor(junk[15], ME)).toEqual({ title: 'Someone mentioned you', body: '@ada the deploy needs your approval' });
  });

  it('the gate shows a repeat once per window', () => {
    let now = 0;
    const gate = new NotificationGate(1000, () => now);
    const n = { title: 'Task is blocked: x', body: 'y' };
    expect(gate.admit(n)).toBe(true);
    expect(gate.admit(n)).toBe(false);
    expect(gate.admit({ ...n, body: 'z' })).toBe(true);
    now = 1000;
    expect(gate.admit(n)).toBe(true);
  });
});

describe('against the events the real core emits', () => {
  let m: MemoryCore | undefined;
  afterEach(() => {
    m?.close();
    m = undefined;
  });

  it("an agent mentioning its owner in a room raises exactly one notification", () => {
    m = openMemoryCore();
    const { core, events } = m;
    const { owner } = createOwner(core.db, { name: 'Ada Owner', isPrimary: true });
    const ownerId = owner.owner_id;
    expect(ownerId).toMatch(/^own_/);
    const room = createRoom(core.db, ownerId, 'release').id;
    const agent = createAgent(core.db, ownerId, 'builder', ALL_SCOPES_MASK);
    addAgent(core.db, room, agent.plate, ownerId);
    const sender = { kind: 'agent' as const, plate: agent.plate, ownerId };
    const slug = owner.handle.slice(1);
    sendMessage(core, sender, { roomId: room, body: 'please approve the deploy', mentionTargets: [`@${slug}`] });
    sendMessage(core, sender, { roomId: room, body: 'no mention here' });
    const notes = events.map((e) => notificationFor(e, ownerId)).filter((n) => n !== null);
    expect(events.some((e) => e.type === 'message.created')).toBe(true);
    expect(notes).toEqual([{ title: expect.stringContaining('@builder') as unknown as string, body: 'please approve the deploy' }]);
    expect(events.map((e) => notificationFor(e, 'own_somebody_else')).filter((n) => n !== null)).toEqual([]);
  });
});
