import type { ErrorCode } from '../../../shared/errors.js';
import { TASK_STATUSES, type TaskStatus } from '../../../shared/task-statuses.js';

/**
 * The task transition table (docs/contract.md "Tasks", docs/tasks.md), as data. Every act on a task's
 * status asks `decide()`; the SQL that applies it re-checks the same conditions in one
 * conditional UPDATE, so a decision taken on a stale read can never be applied.
 */

/** The statuses and their type: the one list of shared/task-statuses.ts, which the schemas and the UI share. */
export { TASK_STATUSES, type TaskStatus };

export type Trigger =
  | 'running_receipt'
  | 'claim_task'
  | 'complete_task'
  | 'set_status'
  | 'release_task'
  | 'cancel'
  | 'reassign';

/** What is known about the task and the caller when the act is decided. */
export interface Facts {
  actor: 'agent' | 'human' | 'server';
  status: TaskStatus;
  /** The caller (agent plate, or the plate the server acts for) is the task's assignee. */
  isAssignee: boolean;
  /** The lease is held by an instance other than the calling one. */
  heldByOtherInstance?: boolean;
  /** Prerequisites not yet done. */
  openDeps?: number;
  /** The status asked for (set_status, complete_task). */
  target?: TaskStatus;
  /** complete_task carried non-empty handoff_notes. */
  hasHandoffNotes?: boolean;
  /** A human actor holds the room role the act needs (force-release, reassignment, cancellation). */
  humanAllowed?: boolean;
}

export interface Rejection {
  code: ErrorCode;
  reason: string;
  message: string;
  retryable?: boolean;
}

export interface TransitionRow {
  /** Statuses the row applies to; 'any' for every status. */
  from: readonly TaskStatus[] | 'any';
  trigger: Trigger;
  /** The condition column, in words. */
  condition: string;
  when: (f: Facts) => boolean;
  /** The status after the act: a status, 'target' (the one asked for) or 'unchanged'. */
  to: TaskStatus | 'target' | 'unchanged';
  /** A refusal: nothing changes and the caller gets this error. */
  reject?: Rejection;
  /** Where the row comes from: the specification's table, or a decision written in docs/tasks.md. */
  source: 'spec' | 'decision';
  also?: string;
}

const always = () => true;

export const NOT_ASSIGNED: Rejection = {
  code: 'FORBIDDEN',
  reason: 'not_assigned',
  message: 'this task is assigned to another agent; tasks are hard-locked to their assignee (ask a room admin to reassign)',
};
export const ALREADY_CLAIMED: Rejection = {
  code: 'CONFLICT',
  reason: 'already_claimed',
  message: 'another instance of you already holds this task; stop and do not retry',
  retryable: false,
};
export const BLOCKED_BY_DEPS: Rejection = {
  code: 'CONFLICT',
  reason: 'blocked_by_deps',
  message: 'a prerequisite (depends_on) is not done yet; read_board shows blocked_by. You will be woken when it is done',
};
const USE_COMPLETE_TASK: Rejection = {
  code: 'CONFLICT',
  reason: 'use_complete_task',
  message: 'set_status cannot mark a task done; use complete_task with handoff_notes',
};
const HANDOFF_REQUIRED: Rejection = {
  code: 'INVALID_ARGUMENT',
  reason: 'handoff_notes_required',
  message: 'complete_task with status done requires handoff_notes for whoever continues the work',
};
const NOT_DOING: Rejection = {
  code: 'CONFLICT',
  reason: 'not_doing',
  message: 'the task is not in doing; claim_task it first (read_board shows its status)',
};

/** The table, in the order rows are tried: the first row whose trigger, from and condition match decides. */
export const TRANSITIONS: readonly TransitionRow[] = [
  // Running receipt: the server marks an assigned push as running.
  { from: ['todo'], trigger: 'running_receipt', condition: 'task assigned to the agent', when: (f) => f.isAssignee && !(f.openDeps ?? 0), to: 'doing', source: 'spec', also: 'lease held by the running instance' },

  // claim_task
  { from: 'any', trigger: 'claim_task', condition: 'plate differs from assignee', when: (f) => !f.isAssignee, to: 'unchanged', reject: NOT_ASSIGNED, source: 'spec', also: 'spec lists todo; any status answers not_assigned the same way' },
  { from: ['todo', 'doing'], trigger: 'claim_task', condition: 'another instance of the same agent already holds it', when: (f) => f.status === 'doing' && !!f.heldByOtherInstance, to: 'unchanged', reject: ALREADY_CLAIMED, source: 'spec' },
  { from: ['doing'], trigger: 'claim_task', condition: 'the calling instance already holds it', when: always, to: 'unchanged', source: 'decision', also: 'a repeated claim by the holder succeeds without change' },
  { from: ['todo'], trigger: 'claim_task', condition: 'some depends_on task not yet done', when: (f) => (f.openDeps ?? 0) > 0, to: 'unchanged', reject: BLOCKED_BY_DEPS, source: 'spec' },
  { from: ['todo'], trigger: 'claim_task', condition: 'caller is the assignee; no open prerequisite; atomic compare-and-swap', when: always, to: 'doing', source: 'spec', also: 'lease held by the instance' },

  // complete_task
  { from: 'any', trigger: 'complete_task', condition: 'caller is not the assignee', when: (f) => !f.isAssignee, to: 'unchanged', reject: NOT_ASSIGNED, source: 'decision' },
  { from: ['doing'], trigger: 'complete_task', condition: 'status done, handoff_notes missing', when: (f) => f.target === 'done' && !f.hasHandoffNotes, to: 'unchanged', reject: HANDOFF_REQUIRED, source: 'spec' },
  { from: ['doing'], trigger: 'complete_task', condition: 'status done, handoff_notes present', when: (f) => f.target === 'done', to: 'done', source: 'spec', also: 'one transaction: status, board record, handoff delivery, a successor wake per task just unblocked' },
  { from: ['doing'], trigger: 'complete_task', condition: 'status blocked or failed', when: (f) => f.target === 'blocked' || f.target === 'failed', to: 'target', source: 'spec', also: 'reason recorded' },

  // set_status
  { from: 'any', trigger: 'set_status', condition: 'status done', when: (f) => f.target === 'done', to: 'unchanged', reject: USE_COMPLETE_TASK, source: 'spec' },
  { from: 'any', trigger: 'set_status', condition: 'status doing or cancelled', when: (f) => f.target === 'doing' || f.target === 'cancelled', to: 'unchanged', reject: { code: 'INVALID_ARGUMENT', reason: 'status_not_settable', message: 'set_status accepts only todo, blocked or failed; claim_task starts work, complete_task finishes it' }, source: 'spec', also: 'rule 1' },
  { from: 'any', trigger: 'set_status', condition: 'caller is not the assignee', when: (f) => !f.isAssignee, to: 'unchanged', reject: NOT_ASSIGNED, source: 'decision' },
  { from: ['doing'], trigger: 'set_status', condition: 'status blocked, failed or todo', when: always, to: 'target', source: 'spec', also: 'reason recorded for blocked and failed; leaving doing drops the lease' },
  { from: ['blocked', 'failed'], trigger: 'set_status', condition: 'status todo, blocked or failed (reopen or restate)', when: always, to: 'target', source: 'decision', also: 'a blocked or failed task can be reopened by its assignee' },

  // release_task
  { from: 'any', trigger: 'release_task', condition: 'an agent that is not the assignee', when: (f) => f.actor === 'agent' && !f.isAssignee, to: 'unchanged', reject: NOT_ASSIGNED, source: 'decision' },
  { from: 'any', trigger: 'release_task', condition: 'a human who may not force-release', when: (f) => f.actor === 'human' && !f.humanAllowed, to: 'unchanged', reject: { code: 'FORBIDDEN', reason: 'not_room_admin', message: "only a room admin or the assignee's owner may force-release a task" }, source: 'decision' },
  { from: ['doing'], trigger: 'release_task', condition: 'explicit self-release or admin force-release', when: always, to: 'todo', source: 'spec', also: 'never automatic' },

  // cancellation
  { from: 'any', trigger: 'cancel', condition: 'a human who may not cancel', when: (f) => f.actor === 'human' && !f.humanAllowed, to: 'unchanged', reject: { code: 'FORBIDDEN', reason: 'not_room_admin', message: "only a room admin or the assignee's owner may cancel a task" }, source: 'decision' },
  { from: 'any', trigger: 'cancel', condition: 'human board action', when: always, to: 'cancelled', source: 'spec' },

  // reassignment
  { from: 'any', trigger: 'reassign', condition: 'a human who may not reassign', when: (f) => f.actor === 'human' && !f.humanAllowed, to: 'unchanged', reject: { code: 'FORBIDDEN', reason: 'not_room_admin', message: 'only the solo-room owner, or a room admin in a cross-owner room, may reassign a task' }, source: 'spec' },
  { from: 'any', trigger: 'reassign', condition: 'human-only, via board UI', when: always, to: 'unchanged', source: 'spec', also: 'new assignee' },
];

export type Decision = { ok: true; to: TaskStatus; row: TransitionRow } | { ok: false; reject: Rejection; row?: TransitionRow };

function fromMatches(row: TransitionRow, s: TaskStatus): boolean {
  return row.from === 'any' || row.from.includes(s);
}

/** The first matching row decides; when none matches, the act is not a transition of the table. */
export function decide(trigger: Trigger, f: Facts): Decision {
  for (const row of TRANSITIONS) {
    if (row.trigger !== trigger || !fromMatches(row, f.status) || !row.when(f)) continue;
    if (row.reject) return { ok: false, reject: row.reject, row };
    const to = row.to === 'unchanged' ? f.status : row.to === 'target' ? f.target! : row.to;
    return { ok: true, to, row };
  }
  if (trigger === 'complete_task' || trigger === 'release_task') return { ok: false, reject: NOT_DOING };
  return {
    ok: false,
    reject: {
      code: 'CONFLICT',
      reason: trigger === 'claim_task' ? 'not_claimable' : 'invalid_transition',
      message:
        trigger === 'claim_task'
          ? 'only a todo task can be claimed; read_board shows its status'
          : 'this status change is not allowed from the current status; read_board shows it',
    },
  };
}

/** Statuses a task may be archived from: finished ones. */
export const ARCHIVABLE: readonly TaskStatus[] = ['done', 'failed', 'cancelled'];
