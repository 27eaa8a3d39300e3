import type { Core } from '../core.js';
import type { Caller } from '../usecase/define.js';
import { notifyActed, notifyTaskEnded, notifyWorktreeRetired } from '../core.js';
import type { Db } from '../db/open.js';
import { immediate } from '../db/open.js';
import { newId } from '../util/ids.js';
import { AppError, invalid } from '../errors/app-error.js';
import { withIdempotency } from '../idempotency/store.js';
import { addInboxItem, ackByIds, ackTaskItems } from '../inbox/store.js';
import { enqueueWake, mayWake } from '../wakes/store.js';
import { humanRole, isAgentMember, requireAgentRoom, requireHumanRoom, touchRoom, trustMode } from '../rooms/store.js';
import { agentHandle, getAgentByPlate, type AgentRow } from '../agents/store.js';
import { agentCandidates, parseHandle, PLATE_RE } from '../addressing/handles.js';
import { ALREADY_CLAIMED, ARCHIVABLE, NOT_ASSIGNED, decide, type Facts, type Rejection, type TaskStatus, type Trigger } from './transitions.js';
import {
  archiveTaskRow,
  cancelTaskRow,
  casClaim,
  dependentsOf,
  getTaskRow,
  insertHandoff,
  insertTask,
  openDepsOf,
  reassignTaskRow,
  releaseToTodo,
  renewLeaseOf,
  replaceDeps,
  repointDependents,
  retryOfTask,
  setRetryOf,
  depsOf,
  returnLeaseOf,
  taskRecord,
  wouldCycle,
  writeStatusStep,
  writeTaskFields,
  type TaskRecord,
  type TaskRow,
} from './store.js';
import { taskPayloadText } from './payload.js';
import { actorOf, recordRenewal, recordTaskEvent, SERVER } from './events.js';
import { humanMay, humanStanding, taskFacts, type TaskAction } from './rules.js';
import { BOARD_LIMIT_HTTP, readBoardPage, type BoardPage, type BoardQuery } from './board.js';

/** Who acts on a task: the caller of the use case (usecase/define.ts). */
export type Actor = Caller;

const MAX_DEPS = 100;

function fail(r: Rejection, taskId?: string, roomId?: string): AppError {
  return new AppError(r.code, r.message, { reason: r.reason, retryable: r.retryable, taskId, roomId });
}

const taskNotFound = () => new AppError('NOT_FOUND', 'task not found; read_board lists the task ids of a room');

/** A task named by id, and, when the caller names it too, the room it must be in (named, so the two ids cannot swap). */
export interface TaskRef {
  taskId: string;
  room?: string;
}

/** The task, if the actor may see it: an agent member of its room, or a human member. */
export function requireTask(db: Db, actor: Actor, { taskId, room: roomId }: TaskRef): TaskRow {
  const t = getTaskRow(db, taskId);
  if (!t || (roomId !== undefined && t.room_id !== roomId)) throw taskNotFound();
  if (actor.kind === 'agent') requireAgentRoom(db, t.room_id, actor.plate);
  else if (!humanRole(db, t.room_id, actor.ownerId)) throw taskNotFound();
  return t;
}

/** An agent of the room named by handle (`@name(owner)`) or plate; refused, never guessed, when unknown or ambiguous. */
export function resolveAssignee(db: Db, roomId: string, assignee: string): AgentRow {
  const s = assignee.trim();
  if (PLATE_RE.test(s)) {
    const a = getAgentByPlate(db, s);
    if (!a || !isAgentMember(db, roomId, s)) throw invalid('the assignee is not an agent of this room; call list_members', 'unknown_assignee');
    return a;
  }
  const h = parseHandle(s);
  if (!h) throw invalid('assignee must be an agent handle (@name(owner)) or plate', 'bad_assignee');
  const c = agentCandidates(db, roomId, h);
  if (c.length > 1) throw invalid('the assignee handle is ambiguous; add the owner part, @name(owner)', 'ambiguous_assignee');
  if (c.length === 0) throw invalid('the assignee is not an agent of this room; call list_members', 'unknown_assignee');
  return getAgentByPlate(db, c[0]!.plate)!;
}

/**
 * The consent state of a task that `actorOwnerId` assigns to `assignee`. Same owner: auto.
 * Across owners the assignee's owner must have Trust on in the room (then accepted);
 * otherwise the assignment is refused at creation: there is no pending state.
 */
export function consentFor(db: Db, roomId: string, actorOwnerId: string, assignee: AgentRow): 'auto' | 'accepted' {
  if (assignee.owner_id === actorOwnerId) return 'auto';
  if (trustMode(db, roomId, assignee.owner_id) !== 'trust_room') {
    throw new AppError(
      'CONSENT_REQUIRED',
      "the assignee belongs to another owner whose Trust is off in this room; that owner must turn it on (set_room_consent trust_room) before you can assign their agents",
      { reason: 'trust_off', roomId },
    );
  }
  return 'accepted';
}

/** Checks depends_on: tasks of the same room, no duplicates, and no cycle through `taskId`. */
function validateDeps(db: Db, roomId: string, taskId: string, deps: readonly string[]): string[] {
  const unique = [...new Set(deps)];
  if (unique.length > MAX_DEPS) throw invalid(`depends_on holds at most ${MAX_DEPS} tasks`);
  for (const d of unique) {
    if (d === taskId) throw invalid('a task cannot depend on itself', 'dependency_cycle');
    const p = getTaskRow(db, d);
    if (!p || p.room_id !== roomId) throw invalid('depends_on must name tasks of the same room; read_board lists them', 'unknown_dependency');
  }
  if (wouldCycle(db, taskId, unique)) throw invalid('depends_on would create a dependency cycle', 'dependency_cycle');
  return unique;
}

/** The inbox trust_level of a task item: what the assignee owner's Trust says of the actor, never assumed. */
function trustLevelOf(db: Db, roomId: string, assignee: AgentRow, actorOwnerId: string) {
  if (assignee.owner_id === actorOwnerId) return 'same_owner' as const;
  return trustMode(db, roomId, assignee.owner_id) === 'trust_room' ? ('trusted' as const) : ('untrusted' as const);
}

/**
 * Tells the assignee about its task (inside the transaction): an inbox item, and an
 * assignment wake when the actor may wake it. A task that still waits on prerequisites
 * is announced by the successor wake instead, when it becomes claimable.
 */
function announceAssignment(db: Db, t: TaskRow, actor: Actor): boolean {
  if (actor.kind === 'agent' && actor.plate === t.assignee) return false;
  if (t.status === 'done' || t.status === 'cancelled' || openDepsOf(db, t.id).length > 0) return false;
  const a = getAgentByPlate(db, t.assignee)!;
  addInboxItem(db, { plate: t.assignee, roomId: t.room_id, taskId: t.id, kind: 'task', trustLevel: trustLevelOf(db, t.room_id, a, actor.ownerId) });
  if (!mayWake(db, t.room_id, t.assignee, actor.ownerId)) return false;
  return (
    enqueueWake(db, {
      plate: t.assignee,
      roomId: t.room_id,
      trigger: 'assignment',
      taskId: t.id,
      content: taskPayloadText(taskRecord(db, t.id)!),
      eventKey: `task:${t.id}:assign:${t.assign_count}`,
      actorOwnerId: actor.ownerId,
      causePlate: actor.kind === 'agent' ? actor.plate : undefined,
    }) !== undefined
  );
}

/** After commit: a task that reached done, failed or cancelled tells the capabilities tied to it (core.ports.taskEnded). */
function endedHook(core: Core, rec: TaskRecord): void {
  if (rec.status === 'done' || rec.status === 'failed' || rec.status === 'cancelled') notifyTaskEnded(core, { roomId: rec.room, taskId: rec.task_id, status: rec.status });
}

function emitBoard(core: Core, roomId: string, wakes: boolean): void {
  core.bus.emit({ type: 'board.changed', room: roomId });
  if (wakes) core.bus.emit({ type: 'wakes.changed', room: roomId });
}

/** What a task mutation did inside its transaction. */
interface TaskChange {
  /** The task it changed (or looked at): its record is what the mutation returns. */
  task: Pick<TaskRow, 'id' | 'room_id'>;
  /** The room's durable classes it changed (`touchRoom`); default board, none when nothing was written. */
  touched?: string[];
  /** It queued a wake: wakes.changed follows board.changed. */
  woke?: boolean;
  /** Nothing changed that anyone should refetch: no event. */
  quiet?: boolean;
}

/**
 * The steps every task mutation shares: `change` decides and writes inside one immediate
 * transaction, the room is touched and the record read in it, and after commit board.changed
 * (and wakes.changed when it woke someone) goes out.
 */
function mutateTask(core: Core, change: (db: Db) => TaskChange): TaskRecord {
  const { db } = core;
  const { rec, done } = immediate(db, () => {
    const done = change(db);
    const touched = done.touched ?? ['board'];
    if (touched.length) touchRoom(db, done.task.room_id, touched);
    return { rec: taskRecord(db, done.task.id)!, done };
  });
  if (!done.quiet) emitBoard(core, rec.room, done.woke === true);
  return rec;
}

export interface CreateInput {
  roomId: string;
  title: string;
  definitionOfDone: string;
  assignee: string;
  detail?: string;
  order?: number;
  dependsOn?: string[];
  idempotencyKey?: string;
}

/**
 * create_task and POST /v1/rooms/:id/tasks: same rules for agents and humans. Not a
 * `mutateTask`: the idempotency record wraps the steps, and a replay emits nothing.
 */
export function createTask(core: Core, actor: Actor, input: CreateInput): TaskRecord & { replayed?: boolean } {
  const { db } = core;
  if (actor.kind === 'agent') requireAgentRoom(db, input.roomId, actor.plate);
  else requireHumanRoom(db, input.roomId, actor.ownerId);
  if (!input.title.trim()) throw invalid('title must not be empty');
  if (!input.definitionOfDone.trim()) throw invalid('definition_of_done must not be empty');
  const actorKey = actor.kind === 'agent' ? actor.plate : actor.ownerId;
  const idemArgs = {
    title: input.title,
    definition_of_done: input.definitionOfDone,
    assignee: input.assignee,
    detail: input.detail ?? null,
    order: input.order ?? null,
    depends_on: input.dependsOn ?? [],
  };
  let woke = false;
  const result = immediate(db, () =>
    withIdempotency(db, `create_task:${input.roomId}:${actorKey}`, input.idempotencyKey, idemArgs, () => {
      const assignee = resolveAssignee(db, input.roomId, input.assignee);
      const consent = consentFor(db, input.roomId, actor.ownerId, assignee);
      const id = newId('task');
      const deps = validateDeps(db, input.roomId, id, input.dependsOn ?? []);
      insertTask(
        db,
        {
          id,
          roomId: input.roomId,
          title: input.title.trim(),
          detail: input.detail ?? null,
          definitionOfDone: input.definitionOfDone,
          assignee: assignee.plate,
          sortOrder: input.order ?? null,
          consent,
          createdByKind: actor.kind,
          createdByPlate: actor.kind === 'agent' ? actor.plate : null,
          createdByOwner: actor.ownerId,
        },
        Date.now(),
      );
      replaceDeps(db, id, deps);
      recordTaskEvent(db, { task: { id, room_id: input.roomId }, kind: 'created', actor: actorOf(actor), to: assignee.plate, detail: deps.length ? { depends_on: deps } : undefined });
      woke = announceAssignment(db, getTaskRow(db, id)!, actor);
      touchRoom(db, input.roomId, ['board']);
      return taskRecord(db, id)!;
    }),
  );
  if (!result.replayed) emitBoard(core, input.roomId, woke);
  return result;
}

export interface UpdateInput {
  title?: string;
  detail?: string | null;
  definitionOfDone?: string;
  order?: number | null;
  dependsOn?: string[];
}

/** Who may edit a task: for agents the assignee or the creating agent; for humans a room admin, the assignee's owner or the creating owner (as for archive). */
function mayEdit(db: Db, actor: Actor, t: TaskRow): boolean {
  if (actor.kind === 'agent') return t.assignee === actor.plate || t.created_by_plate === actor.plate;
  return humanAllows(db, 'edit', t, actor.ownerId);
}

/** The human half of each act is tasks/rules.ts: the same answer the /v1 records list as allowed_actions. */
function humanAllows(db: Db, action: TaskAction, t: TaskRow, ownerId: string): boolean {
  return humanMay(action, taskFacts(db, t), humanStanding(db, t.room_id, ownerId)).ok;
}

/**
 * update_task and PATCH /v1/rooms/:id/tasks/:taskId: an unfinished task's title, detail,
 * definition of done, order or dependencies, by those `mayEdit` names.
 */
export function updateTask(core: Core, actor: Actor, { taskId, room: roomId, patch }: TaskRef & { patch: UpdateInput }): TaskRecord {
  return mutateTask(core, (db) => {
    const t = requireTask(db, actor, { taskId, room: roomId });
    requireEditable(db, actor, t);
    if (patch.title !== undefined && !patch.title.trim()) throw invalid('title must not be empty');
    if (patch.definitionOfDone !== undefined && !patch.definitionOfDone.trim()) throw invalid('definition_of_done must not be empty');
    if (patch.dependsOn !== undefined) replaceDeps(db, t.id, validateDeps(db, t.room_id, t.id, patch.dependsOn));
    const fields = (['title', 'detail', 'definitionOfDone', 'order', 'dependsOn'] as const).filter((k) => patch[k] !== undefined);
    if (fields.length) recordTaskEvent(db, { task: t, kind: 'edited', actor: actorOf(actor), detail: { fields: fields.map((k) => EDITED_FIELD[k]) } });
    writeTaskFields(
      db,
      t.id,
      {
        title: patch.title?.trim() ?? t.title,
        detail: patch.detail !== undefined ? patch.detail : t.detail,
        definition_of_done: patch.definitionOfDone ?? t.definition_of_done,
        sort_order: patch.order !== undefined ? patch.order : t.sort_order,
      },
      Date.now(),
    );
    return { task: t };
  });
}

/** An edit's refusals: the actor may not edit the task (`mayEdit`), or it is finished or archived. */
function requireEditable(db: Db, actor: Actor, t: TaskRow): void {
  if (!mayEdit(db, actor, t)) {
    const who = actor.kind === 'agent' ? 'the assignee or the agent that created a task' : 'a room admin, the assignee’s owner or the task’s creator';
    throw new AppError('FORBIDDEN', `only ${who} may edit it`, { reason: 'not_assigned', taskId: t.id });
  }
  if (t.status === 'done' || t.status === 'cancelled' || t.archived_at !== null) {
    throw new AppError('CONFLICT', 'a finished or archived task cannot be edited', { reason: 'task_finished', taskId: t.id });
  }
}

/**
 * POST /v1/rooms/:id/lanes/:assignee/order (docs/tasks.md "Order"): the tasks named take the
 * orders 10, 20, 30… in the order given, in one transaction: all of them or, when one is refused,
 * none. Each must be a task of the room (else "task not found") in that lane, and an edit of it
 * must be allowed as PATCH …/tasks/:taskId allows it (same refusals); each whose order changes
 * records an `edited` event as that edit does. Tasks of the lane not named keep their order.
 */
export function reorderLane(
  core: Core,
  actor: Extract<Actor, { kind: 'human' }>,
  { room: roomId, assignee, taskIds }: { room: string; assignee: string; taskIds: readonly string[] },
): TaskRecord[] {
  if (!PLATE_RE.test(assignee)) throw invalid('a lane is named by its assignee\'s plate (a board lane\'s "assignee")', 'bad_lane');
  if (new Set(taskIds).size !== taskIds.length) throw invalid('task_ids names a task more than once', 'duplicate_task');
  const { db } = core;
  const { records, changed } = immediate(db, () => {
    const rows = taskIds.map((taskId) => requireTask(db, actor, { taskId, room: roomId }));
    for (const t of rows) {
      if (t.assignee !== assignee) {
        throw new AppError('CONFLICT', 'a task named is not in this lane (it was reassigned meanwhile?); read the board again', { reason: 'not_in_lane', taskId: t.id });
      }
      requireEditable(db, actor, t);
    }
    const now = Date.now();
    let changed = 0;
    rows.forEach((t, i) => {
      const order = (i + 1) * 10;
      if (t.sort_order === order) return;
      recordTaskEvent(db, { task: t, kind: 'edited', actor: actorOf(actor), at: now, detail: { fields: ['order'] } });
      writeTaskFields(db, t.id, { title: t.title, detail: t.detail, definition_of_done: t.definition_of_done, sort_order: order }, now);
      changed++;
    });
    if (changed) touchRoom(db, roomId, ['board']);
    return { records: rows.map((t) => taskRecord(db, t.id)!), changed };
  });
  if (changed) emitBoard(core, roomId, false);
  return records;
}

/** The record's names of the fields an edit names (the `edited` event's detail). */
const EDITED_FIELD = { title: 'title', detail: 'detail', definitionOfDone: 'definition_of_done', order: 'order', dependsOn: 'depends_on' } as const;

function factsOf(db: Db, t: TaskRow, actor: Actor | { kind: 'server'; plate: string }, extra: Partial<Facts> = {}): Facts {
  return {
    actor: actor.kind,
    status: t.status,
    isAssignee: actor.kind !== 'human' && t.assignee === actor.plate,
    openDeps: t.status === 'todo' ? openDepsOf(db, t.id).length : 0,
    ...extra,
  };
}

function decideOrThrow(db: Db, trigger: Trigger, t: TaskRow, actor: Actor, extra: Partial<Facts> = {}): TaskStatus {
  const d = decide(trigger, factsOf(db, t, actor, extra));
  if (!d.ok) throw fail(d.reject, t.id, t.room_id);
  return d.to;
}

/**
 * claim_task: one atomic compare-and-swap. The decision names why a claim is refused;
 * the conditional UPDATE … RETURNING is what makes exactly one concurrent claim win.
 */
export function claimTask(core: Core, actor: Extract<Actor, { kind: 'agent' }>, taskId: string, instanceId: string): TaskRecord & { claimed: boolean } {
  let claimed = false;
  const rec = mutateTask(core, (db) => {
    const t = requireTask(db, actor, { taskId });
    if (t.archived_at !== null) throw new AppError('CONFLICT', 'an archived task cannot be claimed', { reason: 'not_claimable', taskId });
    decideOrThrow(db, 'claim_task', t, actor, { heldByOtherInstance: t.status === 'doing' && t.lease_instance_id !== instanceId });
    // This instance holds it already: a repeat changes nothing.
    if (t.status === 'doing') return { task: t, touched: [], quiet: true };
    const won = casClaim(db, t.id, actor.plate, instanceId, Date.now());
    if (!won) {
      const again = decide('claim_task', factsOf(db, getTaskRow(db, t.id)!, actor, { heldByOtherInstance: true }));
      throw fail(again.ok ? ALREADY_CLAIMED : again.reject, t.id, t.room_id);
    }
    claimed = true;
    recordTaskEvent(db, { task: t, kind: 'claimed', actor: actorOf(actor), from: t.status, to: 'doing', detail: { instance_id: instanceId } });
    return { task: t };
  });
  return { ...rec, claimed };
}

/**
 * The server-owned running receipt (an assigned push started running): todo -> doing with
 * `instanceId` holding the lease, only if the task is assigned to `plate`, todo, and every
 * prerequisite is done. Returns whether it moved. The caller emits board.changed.
 */
export function receiveRunning(db: Db, taskId: string, plate: string, instanceId: string): boolean {
  return immediate(db, () => {
    const t = getTaskRow(db, taskId);
    if (!t || t.archived_at !== null) return false;
    const d = decide('running_receipt', factsOf(db, t, { kind: 'server', plate }));
    if (!d.ok) return false;
    if (!casClaim(db, taskId, plate, instanceId, Date.now())) return false;
    // The server claims for the agent's run when the run starts (the running receipt): the agent's claim, by that run's instance.
    recordTaskEvent(db, { task: t, kind: 'claimed', actor: { kind: 'agent', plate }, from: t.status, to: 'doing', detail: { instance_id: instanceId, receipt: true } });
    touchRoom(db, t.room_id, ['board']);
    return true;
  });
}

/**
 * Takes back the running receipt the server gave an instance that never took its wake (a
 * channel push the session dropped): doing -> todo, the lease gone, so the runner the wake
 * goes to next can receive it. Only while that instance still holds the lease.
 */
export function returnReceipt(db: Db, taskId: string, instanceId: string): boolean {
  return immediate(db, () => {
    const roomId = returnLeaseOf(db, taskId, instanceId, Date.now());
    if (roomId === undefined) return false;
    recordTaskEvent(db, {
      task: { id: taskId, room_id: roomId },
      kind: 'released',
      actor: SERVER,
      from: 'doing',
      to: 'todo',
      reason: 'the session the wake was pushed to never took it',
      detail: { instance_id: instanceId },
    });
    touchRoom(db, roomId, ['board']);
    return true;
  });
}

/** renew_lease: a heartbeat from the holding instance only. It changes nothing but the lease time. */
export function renewLease(core: Core, actor: Extract<Actor, { kind: 'agent' }>, taskId: string, instanceId: string): TaskRecord {
  // Only the lease time changes: no durable class of the room does.
  return mutateTask(core, (db) => {
    const t = requireTask(db, actor, { taskId });
    if (t.assignee !== actor.plate) throw fail(NOT_ASSIGNED, t.id);
    if (!renewLeaseOf(db, t.id, instanceId, Date.now())) {
      throw new AppError(
        'CONFLICT',
        t.status === 'doing' ? 'another instance holds this lease; only the holder renews it' : 'the task is not in doing; there is no lease to renew',
        { reason: t.status === 'doing' ? 'not_lease_holder' : 'not_doing', taskId: t.id },
      );
    }
    recordRenewal(db, t, actorOf(actor), instanceId, Date.now());
    return { task: t, touched: [] };
  });
}

/** release_task (self-release by the assignee) and the admin force-release: doing -> todo. */
export function releaseTask(core: Core, actor: Actor, { taskId, room: roomId }: TaskRef): TaskRecord {
  return mutateTask(core, (db) => {
    const t = requireTask(db, actor, { taskId, room: roomId });
    const humanAllowed = actor.kind === 'human' ? humanAllows(db, 'release', t, actor.ownerId) : undefined;
    decideOrThrow(db, 'release_task', t, actor, { humanAllowed });
    releaseToTodo(db, t.id, Date.now());
    recordTaskEvent(db, { task: t, kind: 'released', actor: actorOf(actor), from: 'doing', to: 'todo', detail: { instance_id: t.lease_instance_id, forced: actor.kind === 'human' } });
    return { task: t };
  });
}

export interface StatusInput {
  status: TaskStatus;
  reason?: string;
  resultRef?: string;
  summary?: string;
  artifacts?: string[];
  next?: string;
}

/** set_status: todo, blocked or failed; done is refused (complete_task is the only way into done). */
export function setStatus(core: Core, actor: Extract<Actor, { kind: 'agent' }>, taskId: string, input: StatusInput): TaskRecord {
  const rec = mutateTask(core, (db) => {
    const t = requireTask(db, actor, { taskId });
    const to = decideOrThrow(db, 'set_status', t, actor, { target: input.status });
    writeStatus(db, t, to, input);
    recordTaskEvent(db, { task: t, kind: 'status_changed', actor: actorOf(actor), from: t.status, to, reason: to === 'blocked' || to === 'failed' ? input.reason : undefined });
    return { task: t };
  });
  endedHook(core, rec);
  notifyActed(core, { plate: actor.plate, roomId: rec.room, sessionId: actor.sessionId, tool: 'set_status' });
  return rec;
}

/** Writes a status step and its board record; the reason is kept only for blocked and failed. */
function writeStatus(db: Db, t: TaskRow, to: TaskStatus, input: StatusInput & { handoffNotes?: string }): void {
  const reason = to === 'blocked' || to === 'failed' ? (input.reason ?? null) : null;
  if (!writeStatusStep(db, t, to, { ...input, reason }, Date.now())) throw new AppError('CONFLICT', 'the task changed meanwhile; read_board and try again', { reason: 'task_changed', taskId: t.id });
}

export interface CompleteInput extends StatusInput {
  handoffNotes?: string;
  ackIds?: string[];
}

/**
 * complete_task. With done it is one transaction: the status and board record, the handoff
 * delivered to every direct successor, and a successor wake (payload carrying the handoff
 * notes verbatim) for each task this completion just unblocked. ack_ids clear inbox items.
 */
export function completeTask(
  core: Core,
  actor: Extract<Actor, { kind: 'agent' }>,
  taskId: string,
  input: CompleteInput,
): TaskRecord & { unblocked: string[] } {
  const hasNotes = input.handoffNotes !== undefined && input.handoffNotes.trim().length > 0;
  const unblocked: string[] = [];
  const rec = mutateTask(core, (db) => {
    let woke = false;
    const t = requireTask(db, actor, { taskId });
    const to = decideOrThrow(db, 'complete_task', t, actor, { target: input.status, hasHandoffNotes: hasNotes });
    writeStatus(db, t, to, to === 'done' ? input : { ...input, handoffNotes: undefined });
    recordTaskEvent(
      db,
      to === 'done'
        ? { task: t, kind: 'completed', actor: actorOf(actor), from: t.status, to, detail: { summary: input.summary ?? null, result_ref: input.resultRef ?? null } }
        : { task: t, kind: 'status_changed', actor: actorOf(actor), from: t.status, to, reason: input.reason },
    );
    if (to === 'done') {
      const notes = input.handoffNotes!;
      const now = Date.now();
      for (const d of dependentsOf(db, t.id)) {
        if (d.archived_at !== null || d.status === 'cancelled') continue;
        insertHandoff(db, newId('hof'), t, d, notes, now);
        if (d.status !== 'todo' || openDepsOf(db, d.id).length > 0) continue;
        unblocked.push(d.id);
        const a = getAgentByPlate(db, d.assignee)!;
        addInboxItem(db, { plate: d.assignee, roomId: d.room_id, taskId: d.id, kind: 'handoff', trustLevel: trustLevelOf(db, d.room_id, a, actor.ownerId) });
        if (mayWake(db, d.room_id, d.assignee, actor.ownerId)) {
          const id = enqueueWake(db, {
            plate: d.assignee,
            roomId: d.room_id,
            trigger: 'successor',
            taskId: d.id,
            content: taskPayloadText(taskRecord(db, d.id)!, notes),
            eventKey: `task:${d.id}:successor:${t.id}`,
            actorOwnerId: actor.ownerId,
            causePlate: actor.kind === 'agent' ? actor.plate : undefined,
          });
          woke ||= id !== undefined;
        }
      }
    }
    ackTaskItems(db, actor.plate, t.id);
    if (input.ackIds?.length) ackByIds(db, actor.plate, input.ackIds);
    return { task: t, touched: to === 'done' ? ['board', 'handoffs'] : ['board'], woke };
  });
  endedHook(core, rec);
  notifyActed(core, { plate: actor.plate, roomId: rec.room, sessionId: actor.sessionId, tool: 'complete_task' });
  return { ...rec, unblocked };
}

/** Human cancellation: any status -> cancelled (room admin or the assignee's owner). */
export function cancelTask(core: Core, actor: Extract<Actor, { kind: 'human' }>, { room: roomId, taskId }: Required<TaskRef>): TaskRecord {
  const rec = mutateTask(core, (db) => {
    const t = requireTask(db, actor, { taskId, room: roomId });
    const humanAllowed = humanAllows(db, 'cancel', t, actor.ownerId);
    decideOrThrow(db, 'cancel', t, actor, { humanAllowed });
    cancelTaskRow(db, t.id, Date.now());
    recordTaskEvent(db, { task: t, kind: 'cancelled', actor: actorOf(actor), from: t.status, to: 'cancelled' });
    return { task: t };
  });
  endedHook(core, rec);
  notifyWorktreeRetired(core, { roomId: rec.room, taskId: rec.task_id });
  return rec;
}

/**
 * Human reassignment: the status is unchanged and the task gets a new assignee. Crossing
 * owners obeys Trust like creation does. The new assignee is told (inbox and assignment wake).
 */
export function reassignTask(
  core: Core,
  actor: Extract<Actor, { kind: 'human' }>,
  { room: roomId, taskId, assignee }: Required<TaskRef> & { assignee: string },
): TaskRecord {
  return mutateTask(core, (db) => {
    const t = requireTask(db, actor, { taskId, room: roomId });
    decideOrThrow(db, 'reassign', t, actor, { humanAllowed: humanAllows(db, 'reassign', t, actor.ownerId) });
    const a = resolveAssignee(db, t.room_id, assignee);
    if (a.plate === t.assignee) return { task: t, touched: [] };
    const consent = consentFor(db, t.room_id, actor.ownerId, a);
    reassignTaskRow(db, t.id, a.plate, consent, Date.now());
    recordTaskEvent(db, { task: t, kind: 'reassigned', actor: actorOf(actor), from: t.assignee, to: a.plate, detail: { status: t.status } });
    return { task: t, woke: announceAssignment(db, getTaskRow(db, t.id)!, actor) };
  });
}

/**
 * POST /v1/rooms/:id/tasks/:taskId/retry (docs/tasks.md): a failed task stays as it is (the
 * specification has no way out of failed); its copy, with `retry_of`, goes to the same or the
 * given agent, which gets an assignment wake; tasks that depended on the failed one depend on
 * the copy. Same rights as reassignment; one retry per failed task.
 */
export function retryTask(
  core: Core,
  actor: Extract<Actor, { kind: 'human' }>,
  { room: roomId, taskId, assignee }: Required<TaskRef> & { assignee?: string },
): TaskRecord {
  return mutateTask(core, (db) => {
    const t = requireTask(db, actor, { taskId, room: roomId });
    if (!humanAllows(db, 'retry', t, actor.ownerId)) {
      throw new AppError('FORBIDDEN', 'only those who may reassign this task may retry it (the agents\' owner, or a room admin)', {
        reason: 'not_allowed',
        taskId: t.id,
      });
    }
    if (t.status !== 'failed') {
      throw new AppError('CONFLICT', `the task is ${t.status}: only a failed task can be retried`, { reason: 'not_failed', taskId: t.id });
    }
    if (retryOfTask(db, t.id)) throw new AppError('CONFLICT', 'this task was already retried', { reason: 'already_retried', taskId: t.id });
    const a = resolveAssignee(db, t.room_id, assignee ?? t.assignee);
    const id = newId('task');
    insertTask(
      db,
      {
        id,
        roomId: t.room_id,
        title: t.title,
        detail: t.detail,
        definitionOfDone: t.definition_of_done,
        assignee: a.plate,
        sortOrder: t.sort_order,
        consent: consentFor(db, t.room_id, actor.ownerId, a),
        createdByKind: 'human',
        createdByPlate: null,
        createdByOwner: actor.ownerId,
      },
      Date.now(),
    );
    if (!setRetryOf(db, id, t.id)) throw new AppError('CONFLICT', 'this task was already retried', { reason: 'already_retried', taskId: t.id });
    replaceDeps(db, id, depsOf(db, t.id));
    repointDependents(db, t.id, id);
    recordTaskEvent(db, { task: t, kind: 'retried', actor: actorOf(actor), to: id, detail: { assignee: a.plate } });
    recordTaskEvent(db, { task: { id, room_id: t.room_id }, kind: 'created', actor: actorOf(actor), to: a.plate, detail: { retry_of: t.id } });
    return { task: { id, room_id: t.room_id }, woke: announceAssignment(db, getTaskRow(db, id)!, actor) };
  });
}

/** archive_task / POST …/archive: a finished task leaves the board but stays readable by id. */
export function archiveTask(core: Core, actor: Actor, { taskId, room: roomId }: TaskRef): TaskRecord {
  const rec = mutateTask(core, (db) => {
    const t = requireTask(db, actor, { taskId, room: roomId });
    const allowed =
      actor.kind === 'agent'
        ? t.assignee === actor.plate || t.created_by_plate === actor.plate
        : humanAllows(db, 'archive', t, actor.ownerId);
    if (!allowed) {
      throw new AppError('FORBIDDEN', 'only the assignee, the task creator or a room admin may archive a task', { reason: 'not_assigned', taskId: t.id });
    }
    if (!ARCHIVABLE.includes(t.status)) {
      throw new AppError('CONFLICT', 'only done, failed or cancelled tasks can be archived', { reason: 'not_finished', taskId: t.id });
    }
    if (t.archived_at !== null) return { task: t, touched: [] };
    archiveTaskRow(db, t.id, Date.now());
    recordTaskEvent(db, { task: t, kind: 'archived', actor: actorOf(actor), from: t.status });
    return { task: t };
  });
  if (rec.worktree) notifyWorktreeRetired(core, { roomId: rec.room, taskId: rec.task_id });
  return rec;
}

export interface BoardFilter {
  /** A plate or handle. */
  assignee?: string;
  statuses?: ReadonlyArray<TaskStatus | 'archived'>;
  limit?: BoardQuery['limit'];
  lane?: string;
  cursor?: string;
  detail?: 'summary' | 'full';
  instanceHandle?: BoardQuery['instanceHandle'];
}

export type { BoardPage, TaskSummary } from './board.js';

/** Lease holders shown by their live instance handle (@name(owner)#session) while the session lives. */
export function leaseHandles(core: Core) {
  return (instanceId: string): string | undefined => {
    const s = core.sessions.get(instanceId);
    const a = s && getAgentByPlate(core.db, s.plate);
    return a ? `${agentHandle(a)}#${s.label}` : undefined;
  };
}

/**
 * read_board and GET /v1/rooms/:id/board: one page per lane (board.ts). The assignee filter
 * takes a handle or a plate of the room; `lane` takes a plate (or "done").
 */
export function readBoard(db: Db, roomId: string, filter: BoardFilter = {}): BoardPage {
  const plate = filter.assignee ? resolveAssignee(db, roomId, filter.assignee).plate : undefined;
  if (filter.lane !== undefined && filter.lane !== 'done' && !PLATE_RE.test(filter.lane)) {
    throw invalid('lane is an assignee plate (a lane\'s "assignee") or "done"', 'bad_lane');
  }
  return readBoardPage(db, roomId, {
    plate,
    statuses: filter.statuses,
    limit: filter.limit ?? BOARD_LIMIT_HTTP,
    lane: filter.lane,
    cursor: filter.cursor,
    detail: filter.detail,
    instanceHandle: filter.instanceHandle,
  });
}
