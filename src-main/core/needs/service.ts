import type { Db } from '../db/open.js';
import { listWakes, wakeDto, type WakeDto, type WakeStatus } from '../wakes/store.js';
import { needsAttentionRows, toRecord, depsOf, openDepsOf, type TaskRecord } from '../tasks/store.js';
import { humanMentionsOf, type MessageRecord } from '../messages/service.js';
import { roomsOfOwner, humanRole } from '../rooms/store.js';
import { platesOfOwner } from '../agents/store.js';

/** Per room and kind at most this many items: the page stays small whatever the rooms hold. */
export const NEEDS_PER_ROOM = 20;
/** Human mentions are looked for among a room's latest this many messages. */
export const MENTION_WINDOW = 500;

export type NeedKind = 'agent_stalled' | 'wake_failed' | 'wake_held' | 'task_failed' | 'task_blocked' | 'lease_stale' | 'blocked_by_failed' | 'mention';

export interface NeedItem {
  kind: NeedKind;
  room: { room_id: string; name: string };
  /** What the UI offers for it; the server checks the right when it is taken. */
  action: 'stop' | 'retry' | 'release' | 'reassign' | 'open';
  at: string;
  wake?: WakeDto;
  task?: TaskRecord;
  /** For `blocked_by_failed`: the failed prerequisite's id. */
  failed_dep?: string;
  message?: MessageRecord;
}

/**
 * What waits on this human across every room it is in (docs/needs-you.md): failed and held wakes
 * of its own agents (or of any agent in a room it administers), blocked and failed tasks, stale
 * leases, tasks waiting on a failed one, mentions of it, and the running wakes of agents whose
 * presence is `stalled` (`opts.stalled`, given by the route: presence needs the live sessions).
 * Newest first, bounded per room.
 */
export function needsYou(
  db: Db,
  ownerId: string,
  opts: { room?: string; limit: number; stalled?: (plate: string) => boolean },
): { items: NeedItem[]; truncated: boolean } {
  const mine = new Set(platesOfOwner(db, ownerId));
  const rooms = roomsOfOwner(db, ownerId).filter((r) => !opts.room || r.id === opts.room);
  const items: NeedItem[] = [];
  for (const r of rooms) {
    const room = { room_id: r.id, name: r.name };
    const admin = humanRole(db, r.id, ownerId) === 'admin';
    // `held` comes with the wakes you can leave running (docs/wakes.md); asked by status, so it shows once it exists.
    for (const status of ['failed', 'held'] as const) {
      for (const w of listWakes(db, { roomId: r.id, status: status as WakeStatus, limit: NEEDS_PER_ROOM })) {
        if (!admin && !mine.has(w.plate)) continue;
        const dto = wakeDto(w);
        items.push({ kind: status === 'failed' ? 'wake_failed' : 'wake_held', room, action: status === 'failed' ? 'retry' : 'release', at: dto.ended_at ?? dto.created_at, wake: dto });
      }
    }
    // A stalled agent (a running wake, no tool call for 5 minutes): stop it, or stop and requeue.
    const stalled = new Map<string, boolean>();
    const isStalled = (plate: string) => stalled.get(plate) ?? stalled.set(plate, opts.stalled?.(plate) ?? false).get(plate)!;
    if (opts.stalled) {
      for (const w of listWakes(db, { roomId: r.id, status: 'running', limit: NEEDS_PER_ROOM })) {
        if ((!admin && !mine.has(w.plate)) || !isStalled(w.plate)) continue;
        const dto = wakeDto(w);
        items.push({ kind: 'agent_stalled', room, action: 'stop', at: dto.started_at ?? dto.created_at, wake: dto });
      }
    }
    const handles = new Map<string, string>();
    for (const t of needsAttentionRows(db, r.id, NEEDS_PER_ROOM)) {
      const task = toRecord(db, t, depsOf(db, t.id), openDepsOf(db, t.id), handles);
      const kind: NeedKind = t.status === 'failed' ? 'task_failed' : t.status === 'blocked' ? 'task_blocked' : t.status === 'doing' ? 'lease_stale' : 'blocked_by_failed';
      const action = kind === 'task_failed' ? 'retry' : kind === 'lease_stale' ? 'release' : kind === 'task_blocked' ? 'reassign' : 'open';
      items.push({ kind, room, action, at: task.updated_at, task, ...(t.failed_dep && kind === 'blocked_by_failed' ? { failed_dep: t.failed_dep } : {}) });
    }
    for (const m of humanMentionsOf(db, r.id, ownerId, MENTION_WINDOW, NEEDS_PER_ROOM)) {
      items.push({ kind: 'mention', room, action: 'open', at: m.created_at, message: m });
    }
  }
  items.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  return { items: items.slice(0, opts.limit), truncated: items.length > opts.limit };
}
