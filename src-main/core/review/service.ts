import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Core } from '../core.js';
import { AppError } from '../errors/app-error.js';
import type { Owner } from '../owners/store.js';
import { createTask, requireTask } from '../tasks/service.js';
import { recordTaskEvent } from '../tasks/events.js';
import { makeFollowUp, recordChangedPaths, recordTaskMerged, taskRecord, taskWorktreeState, type TaskRecord } from '../tasks/store.js';
import { humanMay, humanStanding, taskFacts } from '../tasks/rules.js';
import { touchRoom } from '../rooms/store.js';
import { workspaceRow } from '../workspace/store.js';
import { openToken } from '../workspace/crypto.js';
import { attachTaskToMessageWakes, runningTaskWakes } from '../wakes/store.js';
import { sendMessage } from '../messages/service.js';
import { stmt } from '../db/stmt.js';
import { newId } from '../util/ids.js';
import { immediate } from '../db/open.js';
import { liveInRoom } from '../reservations/store.js';
import { covers, parsePath, parsePattern } from '../reservations/rules.js';
import { agentHandle, getAgentByPlate } from '../agents/store.js';
import type { z } from 'zod';
import type { reviewRecord } from '../../../shared/schemas/review.js';
import type { taskChanges as taskChangesSchema } from '../../../shared/schemas/tasks.js';

/**
 * Humans review the work (docs/review.md): what a task's branch changed, its merge into the base
 * branch in the workspace folder, and its push to the workspace's remote. Git runs behind
 * core.ports.worktrees; the rules of who may and when are here.
 */

/** The task as its room's member sees it, with its worktree and the workspace folder it came from. */
function taskWork(core: Core, owner: Owner, room: string, taskId: string) {
  const t = requireTask(core.db, { kind: 'human', ownerId: owner.owner_id }, { taskId, room });
  const state = taskWorktreeState(core.db, t.id)!;
  const repo = workspaceRow(core.db, t.room_id)?.local_path ?? null;
  return { t, state, repo };
}

/** GET …/changes: the branch's changes against its merge base with the base branch, uncommitted ones included. */
export async function taskChanges(core: Core, input: { owner: Owner; room: string; taskId: string }): Promise<z.input<typeof taskChangesSchema>> {
  const { t, state, repo } = taskWork(core, input.owner, input.room, input.taskId);
  if (!repo) return { files: [], reason: 'the room has no workspace folder' };
  if (state.removed) return { files: [], reason: state.merged ? 'the task was merged into its base branch: its worktree is gone' : "the task's worktree was removed" };
  if (!state.worktree) return { files: [], reason: state.reason ?? 'this task has no worktree yet: one is made the first time a run works on it' };
  const ch = await core.ports.worktrees.changes({ repo, worktree: state.worktree });
  if (!('base' in ch) || !core.db.open) return ch;
  const paths = ch.files.flatMap((f) => (f.old_path ? [f.path, f.old_path] : [f.path]));
  if (recordChangedPaths(core.db, t.id, paths)) core.bus.emit({ type: 'board.changed', room: t.room_id });
  return { ...ch, reservations: reservationsOn(core, t.room_id, t.assignee, ch.files.map((f) => f.path)) };
}

/** Reservations other agents hold on the changed paths (docs/review.md): shown beside the diff. */
function reservationsOn(core: Core, roomId: string, assignee: string, paths: readonly string[]) {
  const out: Array<{ path: string; pattern: string; plate: string; handle: string; exclusive: boolean; task_id: string | null; expires_at: string }> = [];
  const held = liveInRoom(core.db, roomId, Date.now(), 'active').filter((r) => r.plate !== assignee);
  if (!held.length) return out;
  const parsed = paths.slice(0, 300).map((p) => ({ p, parsed: parsePath(p) }));
  for (const r of held.slice(0, 500)) {
    let pattern;
    try {
      pattern = parsePattern(r.pattern);
    } catch {
      continue;
    }
    const a = getAgentByPlate(core.db, r.plate);
    for (const { p, parsed: pp } of parsed) {
      if (pp && covers(pattern, pp)) out.push({ path: p, pattern: r.pattern, plate: r.plate, handle: a ? agentHandle(a) : r.plate, exclusive: r.exclusive === 1, task_id: r.task_id, expires_at: new Date(r.expires_at).toISOString() });
      if (out.length >= 300) return out;
    }
  }
  return out;
}

function refuse(reason: string, message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('CONFLICT', message, { reason, details });
}

/**
 * POST …/merge: the solo-room owner or a room admin (as for reassignment) merges a done task's
 * branch into its base branch in the workspace folder. Refused (409, the folder exactly as it
 * was) when the folder is not on the base branch, has uncommitted changes to tracked files, or
 * the merge would conflict; on success the task records `merged` and its worktree goes.
 */
export async function mergeTask(core: Core, input: { owner: Owner; room: string; taskId: string; strategy: 'merge' | 'squash'; deleteBranch: boolean }): Promise<TaskRecord> {
  const { db } = core;
  const { t, state, repo } = taskWork(core, input.owner, input.room, input.taskId);
  const may = humanMay('merge', taskFacts(db, t), humanStanding(db, t.room_id, input.owner.owner_id));
  if (!may.ok) throw new AppError('FORBIDDEN', may.message, { reason: 'not_allowed', taskId: t.id });
  if (state.merged) throw refuse('already_merged', 'this task was merged already');
  if (t.status !== 'done') throw refuse('not_done', `the task is ${t.status}: only a done task is merged`);
  if (!state.worktree) throw refuse('no_worktree', 'this task has no worktree, so there is no branch of its own to merge');
  if (!repo) throw refuse('no_workspace', 'the room has no workspace folder to merge into');
  if (runningTaskWakes(db, t.id) > 0) throw refuse('run_working', 'a run is working in this task\'s worktree: wait for it to end, or stop it');
  const wt = state.worktree;
  const outcome = await core.ports.worktrees.merge({
    repo,
    branch: wt.branch,
    baseBranch: wt.base_branch,
    strategy: input.strategy,
    message: `${input.strategy === 'squash' ? 'Squash' : 'Merge'} ${wt.branch}: ${t.title}\n\nTask ${t.id}, merged in Agent Rooms by ${input.owner.name}.`,
    author: { name: input.owner.name, email: `${input.owner.handle.replace(/[^A-Za-z0-9._-]/g, '') || 'owner'}@owners.agent-rooms.invalid` },
  });
  if (!outcome.merged) throw refuse(outcome.reason, outcome.message, { paths: outcome.paths, folder: repo });
  const now = Date.now();
  immediate(db, () => {
    if (recordTaskMerged(db, t.id, { commit: outcome.commit, by: input.owner.owner_id }, now)) {
      recordTaskEvent(db, {
        task: t,
        kind: 'merged',
        actor: { kind: 'human', ownerId: input.owner.owner_id },
        at: now,
        detail: { commit: outcome.commit, into: wt.base_branch, strategy: input.strategy },
      });
    }
    touchRoom(db, t.room_id, ['board']);
  });
  core.bus.emit({ type: 'board.changed', room: t.room_id });
  // The worktree goes now that its branch is in the base; the branch too when asked.
  try {
    await core.ports.worktrees.remove(repo, wt, { deleteBranch: input.deleteBranch });
    core.ports.taskWakes.recordWorktree(db, t.id, { removed: true });
    core.bus.emit({ type: 'board.changed', room: t.room_id });
  } catch (err) {
    core.config.log(`worktree of merged task ${t.id} not removed: ${(err as Error).message}`);
  }
  return taskRecord(db, t.id)!;
}

/**
 * POST …/push: the task's branch to the workspace's remote (`repo_url`, else `origin`), with the
 * workspace's git token handed to git by an askpass helper, never in argv, a URL or a message.
 */
export async function pushTask(core: Core, input: { owner: Owner; room: string; taskId: string }) {
  const { db } = core;
  const { t, state, repo } = taskWork(core, input.owner, input.room, input.taskId);
  const may = humanMay('merge', { ...taskFacts(db, t), status: 'done', mergeable: true, archived: false }, humanStanding(db, t.room_id, input.owner.owner_id));
  if (!may.ok) throw new AppError('FORBIDDEN', may.message.replace('merge', 'push'), { reason: 'not_allowed', taskId: t.id });
  if (!repo) throw refuse('no_workspace', 'the room has no workspace folder');
  const branch = state.worktree?.branch;
  if (!branch) throw refuse('no_branch', 'this task has no branch of its own to push');
  const w = workspaceRow(db, t.room_id)!;
  let token: string | undefined;
  if (w.git_token_enc) token = openToken(core, t.room_id, w.git_token_enc);
  return core.ports.worktrees.push({ repo, remote: w.repo_url ?? 'origin', branch, token, base: state.worktree?.base_branch });
}


/** A review as stored and answered (docs/review.md; shared/schemas/review.ts `reviewRecord`). */
export type ReviewRecord = z.output<typeof reviewRecord>;

interface ReviewRow {
  id: string;
  task_id: string;
  room_id: string;
  owner_id: string;
  verdict: ReviewRecord['verdict'];
  body: string | null;
  comments: string;
  message_id: string | null;
  follow_up_task_id: string | null;
  created_at: number;
}

function toReview(r: ReviewRow): ReviewRecord {
  return {
    review_id: r.id,
    task_id: r.task_id,
    room: r.room_id,
    owner_id: r.owner_id,
    verdict: r.verdict,
    body: r.body,
    comments: JSON.parse(r.comments) as ReviewRecord['comments'],
    message_id: r.message_id,
    follow_up_task_id: r.follow_up_task_id,
    created_at: new Date(r.created_at).toISOString(),
  };
}

/** A file larger than this is not read for a quote (the comment still goes, without it). */
const QUOTE_FILE_MAX = 1024 * 1024;

/** The line a comment is about, as the worktree has it now (a bounded read; null when it cannot be read). */
async function quotedLine(worktreePath: string | undefined, path: string, line: number): Promise<string | null> {
  if (!worktreePath) return null;
  try {
    // The real paths: a link the agent left in its worktree must not quote a file outside it into the room.
    const root = await realpath(worktreePath);
    const file = await realpath(resolve(root, path));
    const rel = relative(root, file);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep)[0] === '.git') return null;
    if ((await stat(file)).size > QUOTE_FILE_MAX) return null;
    const text = (await readFile(file, 'utf8')).split('\n', line)[line - 1];
    return text === undefined ? null : text.slice(0, 400);
  } catch {
    return null;
  }
}

const VERDICT_WORDS = { comment: 'comments', request_changes: 'changes requested', approve: 'approved' } as const;

/** The review's one message: the verdict, the body, then each comment as `path:line`, the quoted line and the comment. */
function reviewMessage(title: string, taskId: string, v: ReviewRecord['verdict'], body: string | undefined, comments: ReviewRecord['comments'], followUp?: string): string {
  const parts = [`Review of task "${title}" (${taskId}): ${VERDICT_WORDS[v]}.`];
  if (followUp) parts.push(`The task was done, so the changes go into the follow-up task ${followUp}, on the same branch and worktree.`);
  if (body?.trim()) parts.push(body.trim());
  for (const c of comments) parts.push([`${c.path}:${c.line}`, ...(c.quoted !== null ? [`> ${c.quoted}`] : []), c.body].join('\n'));
  return parts.join('\n\n');
}

/**
 * POST …/reviews (any room member): stores the review and posts its one message by that human,
 * mentioning the assignee, so the assignee is woken (Trust, budget and loop guard as for any
 * mention) in the task's worktree. `request_changes` on a done task makes a follow-up task on the
 * same branch and worktree (done has no way back), with the comments as its detail.
 */
export async function submitReview(
  core: Core,
  input: { owner: Owner; room: string; taskId: string; verdict: ReviewRecord['verdict']; body?: string; comments?: Array<{ path: string; line: number; body: string }> },
): Promise<ReviewRecord> {
  const { db } = core;
  const { t, state } = taskWork(core, input.owner, input.room, input.taskId);
  const live = state.removed ? undefined : state.worktree?.path;
  const comments = await Promise.all((input.comments ?? []).map(async (c) => ({ ...c, quoted: await quotedLine(live, c.path, c.line) })));
  const actor = { kind: 'human' as const, ownerId: input.owner.owner_id };
  let followUp: string | undefined;
  if (input.verdict === 'request_changes' && t.status === 'done') {
    const detail = reviewMessage(t.title, t.id, input.verdict, input.body, comments).slice(0, 60_000);
    const title = `Follow-up: ${t.title}`.slice(0, 200);
    const f = createTask(core, actor, { roomId: t.room_id, title, definitionOfDone: t.definition_of_done, assignee: t.assignee, detail });
    // In the same turn as its assignment wake was queued: the wake starts in the first task's worktree.
    makeFollowUp(db, f.task_id, t.id);
    followUp = f.task_id;
  }
  const message = sendMessage(core, actor, { roomId: t.room_id, body: reviewMessage(t.title, t.id, input.verdict, input.body, comments, followUp), mentionTargets: [t.assignee] });
  // The mention is about the task (or its follow-up): its wake works in that worktree. A done task has nothing left to run.
  const about = followUp ?? (t.status !== 'done' && t.status !== 'cancelled' && input.verdict !== 'approve' ? t.id : undefined);
  if (about) attachTaskToMessageWakes(db, message.message_id, t.assignee, about);
  const id = newId('review');
  // The review and its line in the task's history are one write (docs/tasks.md "History").
  immediate(db, () => {
    stmt(
      db,
      'INSERT INTO task_reviews (id, task_id, room_id, owner_id, verdict, body, comments, message_id, follow_up_task_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(id, t.id, t.room_id, input.owner.owner_id, input.verdict, input.body ?? null, JSON.stringify(comments), message.message_id, followUp ?? null, Date.now());
    recordTaskEvent(db, {
      task: t,
      kind: 'reviewed',
      actor: { kind: 'human', ownerId: input.owner.owner_id },
      detail: { verdict: input.verdict, review_id: id, comments: comments.length, ...(followUp ? { follow_up: followUp } : {}) },
    });
  });
  core.bus.emit({ type: 'board.changed', room: t.room_id });
  return toReview(stmt(db, 'SELECT * FROM task_reviews WHERE id = ?').get(id) as ReviewRow);
}

/** GET …/reviews: the task's reviews, oldest first (at most 200). */
export function listReviews(core: Core, input: { owner: Owner; room: string; taskId: string }): { reviews: ReviewRecord[] } {
  const { t } = taskWork(core, input.owner, input.room, input.taskId);
  const rows = stmt(core.db, 'SELECT * FROM task_reviews WHERE task_id = ? ORDER BY created_at, id LIMIT 200').all(t.id) as ReviewRow[];
  return { reviews: rows.map(toReview) };
}
