import type { Core } from '../core.js';
import type { Db } from '../db/open.js';
import { immediate } from '../db/open.js';
import { newId } from '../util/ids.js';
import { AppError, invalid } from '../errors/app-error.js';
import { getRoom, humanRole, requireAgentRoom, requireHumanRoom, touchRoom } from '../rooms/store.js';
import { agentHandle, getAgentByPlate } from '../agents/store.js';
import { getTaskRow } from '../tasks/store.js';
import { enqueueWake, mayWake } from '../wakes/store.js';
import { Budget, conflicts, covers, normalizePattern, Pacer, PAIRS_PER_TURN, parsePath, parsePattern, PatternIndex, type HeldPattern, type ParsedPattern } from './rules.js';
import type { z } from 'zod';
import type { guardHit, listReservationsOutput, reservationConflict, reservationRecord, reservationRelease } from '../../../shared/schemas/reservations.js';
import type { AnswerOf } from '../../../shared/contracts/contract.js';
import type { contracts } from '../../../shared/contracts/index.js';
import {
  deadRows,
  endReservation,
  grantRequest,
  insertReservation,
  liveById,
  liveInRoom,
  pruneReleaseRecords,
  recentReleases,
  rowsOfTask,
  setExpiry,
  deathCause,
  type ReleaseRow,
  type ReservationRow,
} from './store.js';
import { repeat, type StopStep } from '../util/repeat.js';

/** docs/contract.md "Limits" for reservations. */
export const TTL_DEFAULT_S = 3600;
export const TTL_MAX_S = 24 * 3600;
/** A waiting request gives up after this long without being granted. */
export const WAIT_MAX_MS = 3600_000;
export const PATTERNS_PER_CALL_MAX = 50;
/** Bounds the pattern-against-pattern work of one reserve_paths call. */
export const LIVE_PER_ROOM_MAX = 2000;
const SWEEP_MS = 1000;

export interface Holder {
  plate: string;
  ownerId: string;
}

/** A reservation as tools and routes return it (shared/schemas/reservations.ts `reservationRecord`). */
export type ReservationDto = z.output<typeof reservationRecord>;

/** A holder in the way of a request (shared/schemas/reservations.ts `reservationConflict`). */
export type ConflictDto = z.output<typeof reservationConflict>;

const iso = (ms: number) => new Date(ms).toISOString();

function handleOf(db: Db, plate: string, cache: Map<string, string>): string {
  let h = cache.get(plate);
  if (h === undefined) {
    const a = getAgentByPlate(db, plate);
    h = a ? agentHandle(a) : plate;
    cache.set(plate, h);
  }
  return h;
}

export function reservationDto(db: Db, r: ReservationRow, handles: Map<string, string> = new Map()): ReservationDto {
  return {
    reservation_id: r.id,
    room: r.room_id,
    holder: handleOf(db, r.plate, handles),
    plate: r.plate,
    pattern: r.pattern,
    exclusive: r.exclusive === 1,
    reason: r.reason,
    task_id: r.task_id,
    state: r.state,
    created_at: iso(r.created_at),
    granted_at: r.granted_at === null ? null : iso(r.granted_at),
    expires_at: iso(r.expires_at),
  };
}

const held = (r: ReservationRow): HeldPattern => ({ plate: r.plate, parsed: parsePattern(r.pattern), exclusive: r.exclusive === 1 });

function ttlMs(ttlS: number | undefined): number {
  const s = ttlS ?? TTL_DEFAULT_S;
  if (!Number.isInteger(s) || s < 1 || s > TTL_MAX_S) throw invalid(`ttl_s is a whole number of seconds from 1 to ${TTL_MAX_S}`, 'bad_ttl');
  return s * 1000;
}

function emitChanged(core: Core, rooms: Iterable<string>, woke: boolean): void {
  for (const room of rooms) {
    core.bus.emit({ type: 'reservations.changed', room });
    if (woke) core.bus.emit({ type: 'wakes.changed', room });
  }
}

export interface ReserveInput {
  roomId: string;
  paths: string[];
  exclusive?: boolean;
  ttlS?: number;
  reason?: string;
  taskId?: string;
  wait?: boolean;
}

export type ReserveResult =
  | { granted: true; reservations: ReservationDto[]; context_version: number }
  | { granted: false; queued: true; request_id: string; reservations: ReservationDto[]; conflicts: ConflictDto[]; context_version: number };

/** Waits for the next turn of the event loop: the requests that arrived meanwhile are served first. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * For each reservation row looked at (by id), the indexes of the wanted patterns it conflicts
 * with (empty: none). A row's holder, pattern and exclusivity never change, so the answer holds
 * for as long as the row lives, whatever else happens in the room.
 */
type Meets = Map<string, number[]>;

/**
 * The matching of a reserve_paths call against the room's rows as they were read, resumable:
 * `step` matches until done (true) or until the turn's share is used (false; rules.ts Pacer),
 * and a later call goes on where it stopped. Nothing is decided here; the transaction that
 * writes looks at the rows again (meetsOf).
 */
class ConflictScan {
  readonly meets: Meets;
  private readonly index: PatternIndex<HeldPattern & { r: ReservationRow }>;
  private i = 0;
  private k = 0;
  constructor(
    private readonly wanted: HeldPattern[],
    rows: ReservationRow[],
  ) {
    this.meets = new Map(rows.map((r) => [r.id, []]));
    this.index = new PatternIndex(rows.map((r) => ({ r, ...held(r) })));
  }
  step(budget: Budget, pace: Pacer): boolean {
    for (; this.i < this.wanted.length; this.i++, this.k = 0) {
      const w = this.wanted[this.i]!;
      const candidates = this.index.candidates(w.parsed);
      while (this.k < candidates.length) {
        const h = candidates[this.k++]!;
        if (conflicts(w, h, budget)) this.meets.get(h.r.id)!.push(this.i);
        if (pace.due()) return false;
      }
    }
    return true;
  }
}

/** A row's conflicts with the wanted patterns: the scan's answer, or (a row that appeared or became active since) computed now. */
function meetsOf(meets: Meets, wanted: HeldPattern[], r: ReservationRow, budget: Budget): number[] {
  let m = meets.get(r.id);
  if (m) return m;
  const h = held(r);
  m = [];
  for (let i = 0; i < wanted.length; i++) if (conflicts(wanted[i]!, h, budget)) m.push(i);
  meets.set(r.id, m);
  return m;
}

/** Checks that the caller may reserve in this room now, and returns the room's live rows. */
function liveForReserve(db: Db, caller: Holder, input: ReserveInput, now: number): ReservationRow[] {
  requireAgentRoom(db, input.roomId, caller.plate);
  if (input.taskId !== undefined) requireOwnOpenTask(db, input.roomId, caller.plate, input.taskId);
  const live = liveInRoom(db, input.roomId, now);
  if (live.length >= LIVE_PER_ROOM_MAX) {
    throw new AppError('CONFLICT', `this room holds ${LIVE_PER_ROOM_MAX} reservations; release some first`, { reason: 'too_many_reservations', roomId: input.roomId });
  }
  return live;
}

/**
 * reserve_paths: all of the patterns or none, in one immediate transaction, so of many
 * agents racing for one exclusive pattern exactly one wins. A conflict fails with
 * CONFLICT `paths_reserved`, or with `wait` queues the request behind the holders.
 *
 * A call whose matching fits in one turn of the event loop (nearly all) is matched and written
 * in that one transaction. A longer one leaves it without writing anything and goes on matching
 * against the rows it read, a slice per turn (ConflictScan); then a second transaction reads the
 * room's live rows again and matches only those the scan did not see (made, or granted from the
 * queue, since): its answer is exactly the one a check inside the transaction would give, and a
 * reservation made meanwhile is never missed (docs/reservations.md "Bounded work").
 */
export async function reservePaths(core: Core, caller: Holder, input: ReserveInput): Promise<ReserveResult> {
  const { db } = core;
  const patterns = [...new Set(input.paths.map(normalizePattern))];
  if (patterns.length === 0) throw invalid('paths must name at least one pattern', 'bad_pattern');
  if (patterns.length > PATTERNS_PER_CALL_MAX) throw invalid(`reserve at most ${PATTERNS_PER_CALL_MAX} patterns per call`, 'bad_pattern');
  const ttl = ttlMs(input.ttlS);
  const exclusive = input.exclusive ?? true;
  const wanted = patterns.map((p) => ({ pattern: p, h: { plate: caller.plate, parsed: parsePattern(p), exclusive } }));
  const wantedHeld = wanted.map((w) => w.h);
  // Each wanted pattern meets only the held ones its literal start can touch, and the whole call has one work budget.
  const budget = new Budget();
  const pace = new Pacer(budget);
  // A waiter queues behind earlier waiters it conflicts with too, so the queue is first come, first served.
  const looked = (r: ReservationRow) => r.state === 'active' || input.wait === true;

  /** The decision and the writes, inside the transaction, on the live rows read in it. */
  const decide = (live: ReservationRow[], now: number, meets: Meets): ReserveResult => {
    const handles = new Map<string, string>();
    const hit = (r: ReservationRow) => looked(r) && meetsOf(meets, wantedHeld, r, budget).length > 0;
    // The rows in the way, filed as the scan filed them, so each wanted pattern lists its conflicts in the same order.
    const activeIndex = new PatternIndex(live.filter((r) => r.state === 'active' && hit(r)).map((r) => ({ r, parsed: parsePattern(r.pattern) })));
    const found: ConflictDto[] = [];
    for (let i = 0; i < wanted.length; i++) {
      for (const { r } of activeIndex.candidates(wanted[i]!.h.parsed)) {
        if (!meets.get(r.id)!.includes(i)) continue;
        found.push({
          pattern: wanted[i]!.pattern,
          holder: handleOf(db, r.plate, handles),
          plate: r.plate,
          held_pattern: r.pattern,
          exclusive: r.exclusive === 1,
          expires_at: iso(r.expires_at),
          reservation_id: r.id,
          task_id: r.task_id,
        });
      }
    }
    const behindQueue = input.wait === true && live.some((r) => r.state === 'waiting' && hit(r));
    if (found.length > 0 && !input.wait) {
      throw new AppError(
        'CONFLICT',
        'some paths are reserved by another agent; error.details.conflicts names each holder. Work elsewhere, or call reserve_paths with wait: true to be woken when they are free',
        { reason: 'paths_reserved', roomId: input.roomId, details: { conflicts: found } },
      );
    }
    const requestId = newId('rreq');
    const rows: ReservationRow[] = [];
    if (found.length > 0 || behindQueue) {
      for (const w of wanted) {
        const id = newId('rsv');
        insertReservation(db, { id, requestId, roomId: input.roomId, plate: caller.plate, pattern: w.pattern, exclusive, reason: input.reason ?? null, taskId: input.taskId ?? null, state: 'waiting', ttlMs: ttl, now, expiresAt: now + WAIT_MAX_MS });
        rows.push(liveById(db, id, now)!);
      }
      const v = touchRoom(db, input.roomId, ['reservations']);
      return { granted: false as const, queued: true as const, request_id: requestId, reservations: rows.map((r) => reservationDto(db, r, handles)), conflicts: found, context_version: v };
    }
    const mine = live.filter((r) => r.state === 'active' && r.plate === caller.plate);
    for (const w of wanted) {
      // Asking again for what one already holds renews it instead of stacking a second row.
      const same = mine.find((r) => r.pattern === w.pattern && (r.exclusive === 1) === exclusive && r.task_id === (input.taskId ?? null));
      if (same) {
        setExpiry(db, same.id, Math.max(same.expires_at, now + ttl), ttl);
        rows.push(liveById(db, same.id, now)!);
        continue;
      }
      const id = newId('rsv');
      insertReservation(db, { id, requestId, roomId: input.roomId, plate: caller.plate, pattern: w.pattern, exclusive, reason: input.reason ?? null, taskId: input.taskId ?? null, state: 'active', ttlMs: ttl, now, expiresAt: now + ttl });
      rows.push(liveById(db, id, now)!);
    }
    const v = touchRoom(db, input.roomId, ['reservations']);
    return { granted: true as const, reservations: rows.map((r) => reservationDto(db, r, handles)), context_version: v };
  };

  let scan: ConflictScan | undefined;
  let out = immediate(db, () => {
    const now = Date.now();
    const live = liveForReserve(db, caller, input, now);
    scan = new ConflictScan(wantedHeld, live.filter(looked));
    // More than a turn's share: nothing is written here, and the scan goes on between turns.
    return scan.step(budget, pace) ? decide(live, now, scan.meets) : undefined;
  });
  if (!out) {
    do await nextTurn();
    while (!scan!.step(budget, pace));
    const { meets } = scan!;
    out = immediate(db, () => {
      const now = Date.now();
      return decide(liveForReserve(db, caller, input, now), now, meets);
    });
  }
  emitChanged(core, [input.roomId], false);
  return out;
}

/** A reservation tied to a task is the task's assignee's, for a task of this room that is still open. */
function requireOwnOpenTask(db: Db, roomId: string, plate: string, taskId: string): void {
  const t = getTaskRow(db, taskId);
  if (!t || t.room_id !== roomId) throw new AppError('NOT_FOUND', 'task not found in this room; read_board lists the task ids', { roomId });
  if (t.assignee !== plate) throw new AppError('FORBIDDEN', 'only the assignee may tie reservations to a task', { reason: 'not_assigned', taskId, roomId });
  if (t.archived_at !== null || !['todo', 'doing', 'blocked'].includes(t.status)) {
    throw new AppError('CONFLICT', 'the task is finished; reservations end with their task', { reason: 'task_finished', taskId, roomId });
  }
}

/**
 * Grants waiting requests of a room whose conflicts are gone, oldest first; a request that
 * still conflicts keeps its place and holds back later requests that conflict with it.
 * Each grant queues one `paths_free` wake (its event key makes a second one impossible).
 * Call inside a write transaction; returns whether any wake was queued.
 */
function grantWaiters(db: Db, roomId: string, now: number): boolean {
  const live = liveInRoom(db, roomId, now);
  const active = new PatternIndex(live.filter((r) => r.state === 'active').map(held));
  const requests = new Map<string, ReservationRow[]>();
  for (const r of live) if (r.state === 'waiting') (requests.get(r.request_id) ?? requests.set(r.request_id, []).get(r.request_id)!).push(r);
  const ahead = new PatternIndex<HeldPattern>();
  let woke = false;
  let changed = false;
  // One work budget for the whole pass: a request it cannot afford to look at stays queued (never granted unchecked).
  const budget = new Budget();
  for (const [requestId, rows] of requests) {
    const want = rows.map(held);
    let blocked: boolean;
    try {
      blocked = want.some((w) => active.candidates(w.parsed).some((h) => conflicts(w, h, budget)) || ahead.candidates(w.parsed).some((h) => conflicts(w, h, budget)));
    } catch {
      break;
    }
    if (blocked) {
      want.forEach((w) => ahead.add(w));
      continue;
    }
    grantRequest(db, requestId, now);
    changed = true;
    want.forEach((w) => active.add(w));
    const plate = rows[0]!.plate;
    const agent = getAgentByPlate(db, plate);
    if (agent && mayWake(db, roomId, plate, agent.owner_id)) {
      const granted = rows.map((r) => reservationDto(db, liveById(db, r.id, now)!));
      const id = enqueueWake(db, {
        plate,
        roomId,
        trigger: 'paths_free',
        taskId: rows[0]!.task_id ?? undefined,
        content: JSON.stringify({ paths_free: true, reservations: granted }),
        eventKey: `reservation:${requestId}:granted`,
      });
      woke ||= id !== undefined;
    }
  }
  if (changed) touchRoom(db, roomId, ['reservations']);
  return woke;
}

export interface ReleaseInput {
  roomId: string;
  reservationIds?: string[];
  paths?: string[];
}

/** release_paths: the caller's own reservations (held or waiting), by id or by pattern. */
export function releasePaths(core: Core, caller: Holder, input: ReleaseInput): { released: string[]; context_version: number } {
  const { db } = core;
  if (!input.reservationIds?.length && !input.paths?.length) throw invalid('give reservation_ids or paths to release', 'nothing_to_release');
  const patterns = new Set((input.paths ?? []).map(normalizePattern));
  let woke = false;
  const out = immediate(db, () => {
    requireAgentRoom(db, input.roomId, caller.plate);
    const now = Date.now();
    const mine = liveInRoom(db, input.roomId, now).filter((r) => r.plate === caller.plate);
    const ids = new Set(input.reservationIds ?? []);
    for (const id of ids) {
      if (!mine.some((r) => r.id === id)) {
        throw new AppError('NOT_FOUND', 'no live reservation of yours has that id in this room; list_reservations shows them', { roomId: input.roomId });
      }
    }
    const released: string[] = [];
    for (const r of mine) {
      if (!ids.has(r.id) && !patterns.has(r.pattern)) continue;
      if (endReservation(db, r, r.state === 'waiting' ? 'wait_cancelled' : 'released', { kind: 'agent', id: caller.plate }, now)) released.push(r.id);
    }
    if (released.length) touchRoom(db, input.roomId, ['reservations']);
    woke = grantWaiters(db, input.roomId, now);
    return { released, context_version: currentVersion(db, input.roomId) };
  });
  emitChanged(core, [input.roomId], woke);
  return out;
}

function currentVersion(db: Db, roomId: string): number {
  return getRoom(db, roomId)!.context_version;
}

/** renew_paths: a new TTL (from now, server time) for the caller's own active reservations. */
export function renewPaths(core: Core, caller: Holder, roomId: string, ids: string[], ttlS: number): { reservations: ReservationDto[] } {
  const { db } = core;
  const ttl = ttlMs(ttlS);
  const out = immediate(db, () => {
    requireAgentRoom(db, roomId, caller.plate);
    const now = Date.now();
    const rows = [...new Set(ids)].map((id) => {
      const r = liveById(db, id, now);
      if (!r || r.room_id !== roomId || r.plate !== caller.plate) {
        throw new AppError('NOT_FOUND', 'no live reservation of yours has that id in this room (it may have expired); reserve again', { roomId });
      }
      if (r.state !== 'active') throw new AppError('CONFLICT', 'a waiting request has no TTL to renew yet', { reason: 'not_granted', roomId });
      return r;
    });
    for (const r of rows) setExpiry(db, r.id, now + ttl, ttl);
    touchRoom(db, roomId, ['reservations']);
    return { reservations: rows.map((r) => reservationDto(db, liveById(db, r.id, now)!)) };
  });
  emitChanged(core, [roomId], false);
  return out;
}

/** list_reservations' result (shared/schemas/reservations.ts `listReservationsOutput`). */
export type ListResult = z.output<typeof listReservationsOutput>;

/**
 * Live reservations of a room (and the queue); with `path`, only those that cover it. A read in
 * one deferred transaction (one snapshot with its context_version; docs/architecture.md).
 */
export function listReservations(db: Db, roomId: string, path?: string): ListResult {
  let target: ParsedPattern | undefined;
  if (path !== undefined) {
    target = parsePath(normalizePattern(path));
    if (!target) throw invalid('path must be a repository-relative path', 'bad_pattern');
  }
  return db.transaction(() => {
    const now = Date.now();
    const handles = new Map<string, string>();
    const budget = new Budget();
    const rows = liveInRoom(db, roomId, now).filter((r) => !target || covers(parsePattern(r.pattern), target, budget));
    return {
      reservations: rows.filter((r) => r.state === 'active').map((r) => reservationDto(db, r, handles)),
      waiting: rows.filter((r) => r.state === 'waiting').map((r) => reservationDto(db, r, handles)),
      ...(path !== undefined ? { path: target!.pattern } : {}),
      context_version: currentVersion(db, roomId),
    };
  })();
}

/** The compact reservations section of get_room_context. */
export function contextReservations(db: Db, roomId: string) {
  const handles = new Map<string, string>();
  return liveInRoom(db, roomId, Date.now(), 'active').map((r) => ({
    reservation_id: r.id,
    holder: handleOf(db, r.plate, handles),
    pattern: r.pattern,
    exclusive: r.exclusive === 1,
    task_id: r.task_id,
    expires_at: iso(r.expires_at),
  }));
}

/** Active reservations of a task, for the task's card. */
export function reservationsOfTask(db: Db, roomId: string, taskId: string): ReservationDto[] {
  return liveInRoom(db, roomId, Date.now(), 'active')
    .filter((r) => r.task_id === taskId)
    .map((r) => reservationDto(db, r));
}

export type ReleaseRecordDto = z.output<typeof reservationRelease>;

function releaseRecordDto(db: Db, r: ReleaseRow, handles: Map<string, string>): ReleaseRecordDto {
  return {
    reservation_id: r.reservation_id,
    holder: handleOf(db, r.plate, handles),
    plate: r.plate,
    pattern: r.pattern,
    task_id: r.task_id,
    cause: r.cause,
    by_kind: r.by_kind,
    by: r.by_id,
    reason: r.reason,
    at: iso(r.created_at),
  };
}

/** GET /v1/rooms/:id/reservations: the live ones, the queue, and the newest release records. */
export function roomReservationsForHuman(db: Db, ownerId: string, roomId: string) {
  const role = requireHumanRoom(db, roomId, ownerId).role;
  const handles = new Map<string, string>();
  return {
    ...listReservations(db, roomId),
    released: recentReleases(db, roomId, 50).map((r) => releaseRecordDto(db, r, handles)),
    can_force_release: role === 'admin',
  } satisfies AnswerOf<typeof contracts.reservations.list>;
}

/**
 * Force-release by a room admin (or the owner of the holding agent), with a reason kept in
 * the release record. Waiters behind it are granted in the same transaction.
 */
export function forceRelease(
  core: Core,
  { ownerId, room: roomId, reservationId, reason }: { ownerId: string; room: string; reservationId: string; reason: string },
): ReleaseRecordDto {
  const { db } = core;
  const text = reason.trim();
  if (!text) throw invalid('a force-release needs a reason', 'reason_required');
  let woke = false;
  const rec = immediate(db, () => {
    requireHumanRoom(db, roomId, ownerId);
    const now = Date.now();
    const r = liveById(db, reservationId, now);
    if (!r || r.room_id !== roomId) throw new AppError('NOT_FOUND', 'no live reservation with that id in this room', { roomId });
    const ownsHolder = getAgentByPlate(db, r.plate)?.owner_id === ownerId;
    if (humanRole(db, roomId, ownerId) !== 'admin' && !ownsHolder) {
      throw new AppError('FORBIDDEN', 'only a room admin or the owner of the holding agent may force-release a reservation', { reason: 'not_admin', roomId });
    }
    endReservation(db, r, 'force_released', { kind: 'human', id: ownerId, reason: text }, now);
    touchRoom(db, roomId, ['reservations']);
    woke = grantWaiters(db, roomId, now);
    return releaseRecordDto(db, recentReleases(db, roomId, 1)[0]!, new Map());
  });
  emitChanged(core, [roomId], woke);
  return rec;
}

/**
 * Ends what is dead (TTL over, wait given up, task ended or its lease stale), records why,
 * and grants the waiters that this frees. Returns the rooms that changed.
 */
export function sweep(core: Core, onlyTask?: string): Set<string> {
  const { db } = core;
  const rooms = new Set<string>();
  // Most seconds nothing died: look first (a read), so the sweep takes no write lock then.
  if (!onlyTask && deadRows(db, Date.now()).length === 0) return rooms;
  let woke = false;
  immediate(db, () => {
    const now = Date.now();
    const dead = onlyTask ? rowsOfTask(db, onlyTask).filter((r) => !liveById(db, r.id, now)) : deadRows(db, now);
    for (const r of dead) {
      if (endReservation(db, r, deathCause(db, r, now), { kind: 'server' }, now)) rooms.add(r.room_id);
    }
    for (const room of rooms) {
      touchRoom(db, room, ['reservations']);
      woke = grantWaiters(db, room, now) || woke;
    }
  });
  if (rooms.size) emitChanged(core, rooms, woke);
  return rooms;
}

/** The tasks capability's hook: a task reached done, failed or cancelled. */
export function onTaskEnded(core: Core, taskId: string): void {
  sweep(core, taskId);
}

/** A staged path another agent holds exclusively (the guard's answer, shared/schemas/reservations.ts). */
export type GuardHit = z.output<typeof guardHit>;

/**
 * The pre-commit guard's question: which of these paths are exclusively reserved by
 * an agent other than `committer` (undefined: a human or an unknown committer)? Each path
 * meets only the reservations its first segment can touch (PatternIndex), under one work
 * budget, a slice per turn of the event loop (the route is public: however many paths it is
 * sent, other requests are served between the slices); a path is a name (`**` in it is
 * literal), and an over-long one is INVALID_ARGUMENT. The answer is about the reservations live
 * when the question arrived.
 */
export async function guardCheck(db: Db, roomId: string, paths: string[], committer: string | undefined): Promise<GuardHit[]> {
  const targets = new Map<string, ParsedPattern>();
  // Up to 2,000 paths: parsed a slice per turn too (a path costs about what a pair does).
  for (let k = 0; k < paths.length; k++) {
    const t = parsePath(paths[k]!);
    if (t) targets.set(t.pattern, t);
    if (k % PAIRS_PER_TURN === PAIRS_PER_TURN - 1) await nextTurn();
  }
  const now = Date.now();
  const rows = liveInRoom(db, roomId, now, 'active').filter((r) => r.exclusive === 1 && r.plate !== committer);
  const index = new PatternIndex(rows.map((r) => ({ r, parsed: parsePattern(r.pattern) })));
  const handles = new Map<string, string>();
  const budget = new Budget();
  const pace = new Pacer(budget);
  const hits: GuardHit[] = [];
  for (const target of targets.values()) {
    for (const { r, parsed } of index.candidates(target)) {
      const covered = covers(parsed, target, budget);
      if (pace.due()) await nextTurn();
      if (!covered) continue;
      hits.push({ path: target.pattern, holder: handleOf(db, r.plate, handles), plate: r.plate, pattern: r.pattern, expires_at: iso(r.expires_at), task_id: r.task_id });
    }
  }
  return hits;
}

/** The CAPABILITY_STARTERS entry: the sweep runs now and every second (TTLs are in seconds). */
export function startReservationSweeper(core: Core): StopStep {
  let last = 0;
  return repeat({ name: 'reservation sweep', owner: core, everyMs: SWEEP_MS, log: core.config.log }, () => {
    sweep(core);
    if (Date.now() - last > 3600_000) {
      last = Date.now();
      pruneReleaseRecords(core.db, last);
    }
  });
}
