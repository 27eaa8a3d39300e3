import { TASK_ACTIONS, type TaskAction } from '../../../shared/api-types.js';
import type { Db } from '../db/open.js';
import { agentOwnersOfRoom, humanRole } from '../rooms/store.js';
import { getAgentByPlate } from '../agents/store.js';
import type { RoomRole } from '../rooms/store.js';
import { ARCHIVABLE, decide, type TaskStatus, type Trigger } from './transitions.js';
import { actsOf, no, yes, type Acts, type ActTable, type Permission } from '../util/acts.js';
import { getTaskRow, retryOfTask, roomOverlaps, type Overlap, type TaskRow } from './store.js';

/**
 * What a human may do with a task (docs/tasks.md "What you may do with a task"). One function
 * per act decides it; the service asks the same function before it acts, and the /v1 task
 * records list its answers as `allowed_actions` (with `denied_actions` reasons), so the board
 * and the server cannot disagree.
 */

export { TASK_ACTIONS, type TaskAction };

/** The human asking, as the room sees it. */
export interface HumanStanding {
  ownerId: string;
  role: RoomRole | undefined;
  /** The owners whose agents are in the room (more than one: a cross-owner room). */
  agentOwners: string[];
}

/** What the rules read of a task. */
export interface TaskFacts {
  status: TaskStatus;
  archived: boolean;
  /** The owner of the assignee agent. */
  assigneeOwner: string | undefined;
  createdByOwner: string;
  /** A failed task already has its retry. */
  retried: boolean;
  /** It has a worktree whose branch is not merged yet (docs/review.md). */
  mergeable: boolean;
}

export type { Permission };

/** The reassignment right: the solo-room owner, or a room admin when the room is cross-owner (or has no agent yet). */
function reassignRight(verb: string, who: HumanStanding): Permission {
  if (!who.role) return no('not_member', `Only a member of the room may ${verb}.`);
  if (who.agentOwners.length > 1) return isAdmin(who) ? yes : no('cross_owner_admin_only', `In a cross-owner room only a room admin may ${verb}.`);
  if (who.agentOwners.length === 1) return who.agentOwners[0] === who.ownerId ? yes : no('agent_owner_only', `Only the owner of this room’s agents may ${verb} here.`);
  return isAdmin(who) ? yes : no('admin_only', `Only a room admin may ${verb} here.`);
}

/** The transition-table trigger of the acts that are rows of it (their status half is the table's). */
const byTable = (trigger: Trigger) => (t: TaskFacts) => decide(trigger, { actor: 'human', status: t.status, isAssignee: false, humanAllowed: true }).ok;

/**
 * The act table of a task: `applies` is the status half (an act that would change nothing is not
 * offered, cancelling a cancelled task, though the server answers such a repeat); `may` is who may.
 */
const TASK_TABLE: ActTable<TaskAction, TaskFacts, HumanStanding> = {
  // Title, detail, definition of done, order, dependencies.
  edit: {
    applies: (t) => t.status !== 'done' && t.status !== 'cancelled' && !t.archived,
    may: (t, who) => (isAdmin(who) || ownsAssignee(t, who) || created(t, who) ? yes : no('admin_assignee_owner_or_creator_only', 'Only a room admin, the assignee’s owner or the task’s creator may edit this task.')),
  },
  reassign: { applies: byTable('reassign'), may: (_t, who) => reassignRight('reassign', who) },
  cancel: {
    applies: (t) => t.status !== 'cancelled' && byTable('cancel')(t),
    may: (t, who) => (isAdmin(who) || ownsAssignee(t, who) ? yes : no('admin_or_assignee_owner_only', 'Only a room admin or the assignee’s owner may cancel.')),
  },
  release: {
    applies: byTable('release_task'),
    may: (t, who) => (isAdmin(who) || ownsAssignee(t, who) ? yes : no('admin_or_assignee_owner_only', 'Only a room admin or the assignee’s owner may force-release a lease.')),
  },
  archive: {
    applies: (t) => ARCHIVABLE.includes(t.status) && !t.archived,
    may: (t, who) => (isAdmin(who) || ownsAssignee(t, who) || created(t, who) ? yes : no('admin_assignee_owner_or_creator_only', 'Only a room admin, the assignee’s owner or the task’s creator may archive.')),
  },
  // Same rights as reassignment: the copy goes to an agent of the room.
  retry: { applies: (t) => t.status === 'failed' && !t.retried, may: (_t, who) => reassignRight('retry', who) },
  // Same rights as reassignment: the work lands in the base branch everyone of the room works from.
  merge: { applies: (t) => t.status === 'done' && t.mergeable && !t.archived, may: (_t, who) => reassignRight('merge', who) },
};

const isAdmin = (who: HumanStanding) => who.role === 'admin';
const ownsAssignee = (t: TaskFacts, who: HumanStanding) => t.assigneeOwner !== undefined && t.assigneeOwner === who.ownerId;
const created = (t: TaskFacts, who: HumanStanding) => t.createdByOwner === who.ownerId;

/** Does the act make sense for the task as it is now (the status half)? */
export function applies(action: TaskAction, t: TaskFacts): boolean {
  return TASK_TABLE[action].applies?.(t) ?? true;
}

/** May this human do `action` with the task (the permission half; the service asks this before it acts)? */
export function humanMay(action: TaskAction, t: TaskFacts, who: HumanStanding): Permission {
  return TASK_TABLE[action].may(t, who);
}

/**
 * What the caller may do with the task now (each listed act succeeds when tried), and the acts
 * the status allows but this caller may not, with `{code, message}`.
 */
export type TaskActions = Acts<TaskAction>;

export function taskActions(t: TaskFacts, who: HumanStanding): TaskActions {
  return actsOf(TASK_ACTIONS, TASK_TABLE, t, who);
}

/** The standing of a human in a room, read once per request. */
export function humanStanding(db: Db, roomId: string, ownerId: string): HumanStanding {
  return { ownerId, role: humanRole(db, roomId, ownerId), agentOwners: agentOwnersOfRoom(db, roomId) };
}

/** The facts the rules read, from a task's row; `owners` caches plate -> owner across a board. */
export function taskFacts(db: Db, t: TaskRow, owners?: Map<string, string | undefined>): TaskFacts {
  let owner = owners?.get(t.assignee);
  if (owner === undefined && !owners?.has(t.assignee)) {
    owner = getAgentByPlate(db, t.assignee)?.owner_id;
    owners?.set(t.assignee, owner);
  }
  return {
    status: t.status,
    archived: t.archived_at !== null,
    assigneeOwner: owner,
    createdByOwner: t.created_by_owner,
    retried: t.status === 'failed' && retryOfTask(db, t.id) !== undefined,
    mergeable: t.worktree !== null && t.worktree_removed_at === null && t.merged_commit === null,
  };
}

/**
 * /v1 task records as the owner calling sees them: each with its allowed and denied acts. The
 * MCP tools do not carry them (an agent's acts are its tools' own rules, and the core tool
 * listing stays as it is).
 */
export function withTaskActions<T extends { task_id: string }>(db: Db, roomId: string, ownerId: string, records: T[]): Array<ShownTask<T>> {
  return annotate(db, humanStanding(db, roomId, ownerId), new Map(), records, roomOverlaps(db, roomId));
}

/** A /v1 task record: the record, what the caller may do with it, and the open tasks whose branches change the same files. */
export type ShownTask<T> = T & TaskActions & { overlaps: Overlap[] };

function annotate<T extends { task_id: string }>(
  db: Db,
  who: HumanStanding,
  owners: Map<string, string | undefined>,
  records: T[],
  overlaps: Map<string, Overlap[]>,
): Array<ShownTask<T>> {
  return records.map((r) => {
    const row = getTaskRow(db, r.task_id);
    const shared = overlaps.get(r.task_id) ?? [];
    return row ? { ...r, ...taskActions(taskFacts(db, row, owners), who), overlaps: shared } : { ...r, allowed_actions: [], denied_actions: {}, overlaps: shared };
  });
}

/**
 * The room-wide act of a board: may the caller reassign in this room at all? The right depends on
 * the caller's standing only (reassignRight), so the window asks the board instead of guessing it
 * from one task.
 */
const BOARD_TABLE: ActTable<'reassign', undefined, HumanStanding> = { reassign: { may: (_b, who) => reassignRight('reassign', who) } };

type Lane<B extends { lanes: unknown[] }> = B['lanes'][number];

/** A board page as /v1 shows it: every task a ShownTask, and the room-wide reassign right. */
export type ShownBoard<B extends { lanes: Array<{ tasks: Array<{ task_id: string }> }>; done: Array<{ task_id: string }> }> = Omit<B, 'lanes' | 'done'> & {
  lanes: Array<Omit<Lane<B>, 'tasks'> & { tasks: Array<ShownTask<Lane<B>['tasks'][number]>> }>;
  done: Array<ShownTask<B['done'][number]>>;
} & Acts<'reassign'>;

/** A board page with every task's acts and the room-wide reassign right (the caller's standing read once). */
export function boardWithActions<B extends { lanes: Array<{ tasks: Array<{ task_id: string }> }>; done: Array<{ task_id: string }> }>(
  db: Db,
  roomId: string,
  ownerId: string,
  board: B,
): ShownBoard<B> {
  const who = humanStanding(db, roomId, ownerId);
  const owners = new Map<string, string | undefined>();
  // Open tasks whose branches change the same files say so on their cards (docs/review.md "Overlaps").
  const overlaps = roomOverlaps(db, roomId);
  // The spread of a generic page is not narrowed by TypeScript: the fields replaced are exactly ShownBoard's.
  return {
    ...board,
    lanes: board.lanes.map((l) => ({ ...l, tasks: annotate(db, who, owners, l.tasks, overlaps) })),
    done: annotate(db, who, owners, board.done, overlaps),
    ...actsOf(['reassign'] as const, BOARD_TABLE, undefined, who),
  } as ShownBoard<B>;
}
