import { agentPresence, type Core } from '../core.js';
import type { Db } from '../db/open.js';
import { immediate } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { newId } from '../util/ids.js';
import { AppError, invalid } from '../errors/app-error.js';
import { changedClassesSince, getRoom, humanRole, lastChangeOf, listMembers, dropOldRoomChanges, touchRoom } from '../rooms/store.js';
import { instancesOf } from '../rooms/instances.js';
import { agentHandle, getAgentByPlate } from '../agents/store.js';
import { latestHandoffTo, openTaskIdsOf, taskRecord } from '../tasks/store.js';
import { workspaceRow } from '../workspace/store.js';
import { listFilesPage } from '../files/service.js';
import { contextReservations } from '../reservations/service.js';
import { repeat, type StopStep } from '../util/repeat.js';
import type { z } from 'zod';
import { DECISION_MAX, FOCUS_MAX, type decisionRecord, type focusRecord } from '../../../shared/schemas/context.js';

/** docs/contract.md "Limits": the last 1,000 versions of a room's context deltas are kept. */
export const CONTEXT_HISTORY_VERSIONS = 1000;
/** get_room_context shows the newest decisions; the human API pages through all of them. */
const DECISIONS_IN_CONTEXT = 100;

export const CONTEXT_CLASSES = ['messages', 'board', 'files', 'focus', 'decisions', 'roster', 'handoffs', 'workspace', 'reservations'] as const;
export type ContextClass = (typeof CONTEXT_CLASSES)[number];

// ---- focus and decisions (set by humans) ----

/** The room's current focus (shared/schemas/context.ts `focusRecord`). */
export type FocusDto = z.output<typeof focusRecord>;

export function getFocus(db: Db, roomId: string): FocusDto {
  const r = stmt(db, 'SELECT focus, set_by, updated_at FROM room_focus WHERE room_id = ?').get(roomId) as
    | { focus: string; set_by: string; updated_at: number }
    | undefined;
  return r ? { focus: r.focus, set_by: r.set_by, updated_at: new Date(r.updated_at).toISOString() } : { focus: null, set_by: null, updated_at: null };
}

/** Sets (or clears, with an empty string) the room's current focus. */
export function setFocus(core: Core, roomId: string, ownerId: string, focus: string): FocusDto {
  const text = focus.trim();
  if (text.length > FOCUS_MAX) throw invalid(`focus must be at most ${FOCUS_MAX} characters`);
  const { db } = core;
  immediate(db, () => {
    if (text) {
      stmt(
        db,
        `INSERT INTO room_focus (room_id, focus, set_by, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (room_id) DO UPDATE SET focus = excluded.focus, set_by = excluded.set_by, updated_at = excluded.updated_at`,
      ).run(roomId, text, ownerId, Date.now());
    } else {
      stmt(db, 'DELETE FROM room_focus WHERE room_id = ?').run(roomId);
    }
    touchRoom(db, roomId, ['focus']);
  });
  core.bus.emit({ type: 'context.changed', room: roomId, data: { classes: ['focus'] } });
  return getFocus(db, roomId);
}

/** A durable decision (shared/schemas/context.ts `decisionRecord`). */
export type DecisionDto = z.output<typeof decisionRecord>;

interface DecisionRow {
  seq: number;
  id: string;
  text: string;
  created_by: string;
  created_at: number;
}

const decisionDto = (r: DecisionRow): DecisionDto => ({
  decision_id: r.id,
  text: r.text,
  created_by: r.created_by,
  created_at: new Date(r.created_at).toISOString(),
});

/** Durable decisions, oldest first (the newest `limit`). */
export function listDecisions(db: Db, roomId: string, limit = DECISIONS_IN_CONTEXT): DecisionDto[] {
  const rows = stmt(db, 'SELECT seq, id, text, created_by, created_at FROM room_decisions WHERE room_id = ? ORDER BY seq DESC LIMIT ?').all(
    roomId,
    limit,
  ) as DecisionRow[];
  return rows.reverse().map(decisionDto);
}

export function addDecision(core: Core, roomId: string, ownerId: string, text: string): DecisionDto {
  const t = text.trim();
  if (!t) throw invalid('text must not be empty');
  if (t.length > DECISION_MAX) throw invalid(`text must be at most ${DECISION_MAX} characters`);
  const { db } = core;
  const id = newId('dec');
  immediate(db, () => {
    stmt(db, 'INSERT INTO room_decisions (id, room_id, text, created_by, created_at) VALUES (?, ?, ?, ?, ?)').run(id, roomId, t, ownerId, Date.now());
    touchRoom(db, roomId, ['decisions']);
  });
  core.bus.emit({ type: 'context.changed', room: roomId, data: { classes: ['decisions'] } });
  return decisionDto(stmt(db, 'SELECT seq, id, text, created_by, created_at FROM room_decisions WHERE id = ?').get(id) as DecisionRow);
}

// ---- the sections of a room's context, one per class ----

const ACTIVE = ['todo', 'doing', 'blocked'];

/** The caller's active tasks (todo, doing, blocked) with their lock (lease holder) and stale flag. */
function myTasks(db: Db, roomId: string, plate: string) {
  return openTaskIdsOf(db, roomId, plate)
    .map((id) => taskRecord(db, id)!)
    .filter((t) => ACTIVE.includes(t.status))
    .map((t) => ({
      task_id: t.task_id,
      title: t.title,
      status: t.status,
      definition_of_done: t.definition_of_done,
      depends_on: t.depends_on,
      blocked_by: t.blocked_by,
      lock: { held: t.lease.instance_id !== null, instance_id: t.lease.instance_id, renewed_at: t.lease.renewed_at },
      stale: t.lease.stale,
      reason: t.reason,
    }));
}

/** The newest handoff note addressed to the caller in this room (task_handoffs of the tasks capability). */
function latestHandoff(db: Db, roomId: string, plate: string) {
  const r = latestHandoffTo(db, roomId, plate);
  if (!r) return null;
  const from = getAgentByPlate(db, r.from_plate);
  return {
    from_task_id: r.from_task_id,
    to_task_id: r.to_task_id,
    from: from ? agentHandle(from) : null,
    handoff_notes: r.notes,
    created_at: new Date(r.created_at).toISOString(),
  };
}

function roster(core: Core, roomId: string) {
  const m = listMembers(core.db, roomId);
  const live = instancesOf(core, roomId);
  return {
    humans: m.humans.map((h) => ({ handle: h.handle, name: h.name, role: h.role })),
    agents: m.agents.map((a) => ({
      handle: a.handle,
      name: a.name,
      revoked: a.revoked,
      presence: agentPresence(core, a.plate),
      live_instances: live.filter((i) => i.plate === a.plate).map((i) => ({ handle: i.handle, host: i.host, working_on: i.working_on })),
    })),
  };
}

/** get_room_context's file manifest holds the first page of paths; list_files pages through the rest. */
export const CONTEXT_FILES_MAX = 100;

/** Manifest refs only (path, id, version, size, hash, how to read): never file bodies. */
function fileRefs(core: Core, roomId: string, plate: string, ownerId: string) {
  const page = listFilesPage(core, { kind: 'agent', plate, ownerId }, roomId, { limit: CONTEXT_FILES_MAX });
  return {
    files: page.files.map((f) => ({
      path: f.path,
      file_id: f.file_id,
      version: f.version,
      content_type: f.content_type,
      size_bytes: f.size_bytes,
      sha256: f.sha256,
      status: f.status,
      read_with: f.read_with,
    })),
    files_total: page.total,
    files_next_cursor: page.next_cursor,
  };
}

/** What the caller may know of the workspace here: read_workspace (admin-only) has the rest. */
function workspaceRef(db: Db, roomId: string, ownerId: string) {
  const r = workspaceRow(db, roomId);
  if (!r) return { configured: false };
  if (humanRole(db, roomId, ownerId) !== 'admin') return { configured: true, read_with: null };
  return { configured: true, local_path: r.local_path, repo_url: r.repo_url, repo_branch: r.repo_branch, read_with: 'read_workspace' };
}

/** The newest version at which the board changed (for read_board), bounded by retained history. */
function boardVersion(db: Db, roomId: string, current: number): number {
  return lastChangeOf(db, roomId, 'board') ?? Math.max(0, current - CONTEXT_HISTORY_VERSIONS);
}

function lastSeq(db: Db, roomId: string): number {
  return getRoom(db, roomId)!.next_seq - 1;
}

export interface ContextCaller {
  plate: string;
  ownerId: string;
}

/** The sections of the room context for these classes (all of them for a snapshot). */
function sections(core: Core, roomId: string, caller: ContextCaller, classes: ReadonlySet<string>, version: number) {
  const { db } = core;
  const out: Record<string, unknown> = {};
  if (classes.has('focus')) out.focus = getFocus(db, roomId);
  if (classes.has('roster')) out.roster = roster(core, roomId);
  if (classes.has('board')) out.my_tasks = myTasks(db, roomId, caller.plate);
  if (classes.has('handoffs')) out.handoff = latestHandoff(db, roomId, caller.plate);
  if (classes.has('decisions')) out.decisions = listDecisions(db, roomId);
  if (classes.has('files')) Object.assign(out, fileRefs(core, roomId, caller.plate, caller.ownerId));
  if (classes.has('workspace')) out.workspace = workspaceRef(db, roomId, caller.ownerId);
  if (classes.has('reservations')) out.reservations = contextReservations(db, roomId);
  const cursors: Record<string, number> = {};
  if (classes.has('messages')) cursors.messages_seq = lastSeq(db, roomId);
  if (classes.has('board')) cursors.board_version = boardVersion(db, roomId, version);
  if (Object.keys(cursors).length) out.cursors = cursors;
  return out;
}

/**
 * get_room_context (docs/contract.md "Room context"): not_modified when nothing changed since
 * `sinceVersion`, only the changed classes when the cursor is within the retained history,
 * else (no cursor, too old, or from the future) a full snapshot. Everything is read in one
 * read (deferred) transaction, so the sections agree with the context_version they are keyed to.
 */
export function roomContext(core: Core, roomId: string, caller: ContextCaller, sinceVersion?: number) {
  const { db } = core;
  return db.transaction(() => {
    const room = getRoom(db, roomId);
    if (!room) throw new AppError('NOT_FOUND', 'room not found; call list_rooms');
    const version = room.context_version;
    if (sinceVersion !== undefined && sinceVersion === version) return { not_modified: true as const, context_version: version };
    const withinHistory = sinceVersion !== undefined && sinceVersion < version && sinceVersion >= version - CONTEXT_HISTORY_VERSIONS;
    if (!withinHistory) {
      return { context_version: version, full: true, ...sections(core, roomId, caller, new Set(CONTEXT_CLASSES), version) };
    }
    const changed = changedClassesSince(db, roomId, sinceVersion);
    return {
      context_version: version,
      since_version: sinceVersion,
      full: false,
      changed,
      ...sections(core, roomId, caller, new Set(changed), version),
    };
  })();
}

/** Drops delta rows older than the retained history (the last 1,000 versions of each room). */
export function pruneRoomChanges(db: Db): number {
  return dropOldRoomChanges(db, CONTEXT_HISTORY_VERSIONS);
}

/** The CAPABILITY_STARTERS entry: prunes delta history now and every minute. */
export function startContextPruner(core: Core): StopStep {
  return repeat({ name: 'room context pruning', owner: core, everyMs: 60_000, log: core.config.log }, () => pruneRoomChanges(core.db));
}
