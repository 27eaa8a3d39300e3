import { statSync } from 'node:fs';
import type { Core, WorktreeInfo } from '../core.js';
import type { AgentRow } from '../agents/store.js';
import { agentHandle } from '../agents/store.js';
import { workspaceRow } from '../workspace/store.js';
import { maskIssuedSecrets } from './runners.js';
import type { RunnerConfig } from './runners.js';
import type { RunHome } from './run-home.js';
import { isInsideHome, knownSecrets, scratchFolder } from './secrets.js';
import { runningTaskWakes, type WakeRow } from './store.js';

/**
 * The run-workspace seam (docs/worktrees.md): where one run works and what is left to do with
 * that place when it ends. A run about a task works in the task's git worktree (made, or
 * recreated, through core.ports.worktrees); any other run where it did before (its runner's
 * cwd, its owner's workspace folder, else a scratch folder; never the data home). Per-run
 * settings homes (Gemini CLI's) are closed with it. What a run left uncommitted in a worktree is
 * committed on the task's branch when it ends, and a retired task's worktree is removed once no
 * run works in it.
 */
export interface RunWorkspace {
  cwd: string;
  worktree: WorktreeInfo | null;
  /** Why a task run has no worktree (the workspace is not a git repository, none is set). */
  worktreeReason: string | null;
  /** Per-run folders of the host (removed at close). */
  homes: RunHome[];
}

export const NO_WORKSPACE_FOLDER = "the room has no workspace folder set by this agent's owner: runs work in the runner's own folder";

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The room workspace's local folder, only when the agent's own owner set it: a path another
 * owner (say a room admin) configured never becomes the working folder of your runner.
 */
export function workspaceFolder(core: Core, roomId: string, agentOwnerId: string): string | undefined {
  const r = workspaceRow(core.db, roomId);
  return r?.local_path && r.local_path_by === agentOwnerId ? r.local_path : undefined;
}

/** Where a run without a worktree works (docs/security.md): its own cwd, else its owner's workspace path, else a scratch folder; never the data home. */
export function plainFolder(core: Core, runner: RunnerConfig, a: AgentRow, roomId: string): { cwd: string } | { refused: string } {
  let cwd = runner.cwd ?? workspaceFolder(core, roomId, a.owner_id);
  if (!cwd) {
    try {
      cwd = scratchFolder(a.plate);
    } catch {
      return { refused: 'the runner scratch folder could not be created' };
    }
  }
  if (isInsideHome(core.config.home, cwd)) return { refused: 'the runner working folder is the data home or inside it; runners never work there' };
  if (!isDir(cwd)) return { refused: 'the runner working folder does not exist' };
  return { cwd };
}

/** Whether a run of this wake may get a worktree: it is about a task, and its owner's workspace has a folder. */
export function mayWorkInWorktree(core: Core, w: WakeRow, a: AgentRow): boolean {
  return w.task_id !== null && workspaceFolder(core, w.room_id, a.owner_id) !== undefined;
}

/** Git's words as a wake's reason: one line, secrets masked. */
function gitReason(err: unknown): string {
  let s = (err as Error).message ?? String(err);
  s = maskIssuedSecrets(s);
  return s.slice(0, 800);
}

/**
 * Opens the workspace of one run. A task run in a room whose workspace folder (set by the
 * agent's owner) is the top of a git repository works in the task's worktree; git failing there
 * (a missing base branch, a locked repository) refuses the run with git's message, leaving nothing
 * half made. Records on the task what it found (its worktree, or why there is none).
 */
export async function openRunWorkspace(core: Core, w: WakeRow, a: AgentRow, runner: RunnerConfig): Promise<RunWorkspace | { refused: string }> {
  const { db } = core;
  const task = w.task_id ? core.ports.taskWakes.worktreeOf(db, w.task_id) : undefined;
  const plain = (reason: string | null): RunWorkspace | { refused: string } => {
    const where = plainFolder(core, runner, a, w.room_id);
    return 'refused' in where ? where : { cwd: where.cwd, worktree: null, worktreeReason: reason, homes: [] };
  };
  if (!w.task_id || !task) return plain(null);
  if (task.removed) return plain('removed: the task was merged, cancelled or archived');
  const repo = workspaceFolder(core, w.room_id, a.owner_id);
  if (!repo) return plain(NO_WORKSPACE_FOLDER);
  if (isInsideHome(core.config.home, repo)) return { refused: 'the workspace folder is the data home or inside it; runners never work there' };
  if (!isDir(repo)) return { refused: `the workspace folder ${repo} does not exist` };
  let prepared;
  try {
    prepared = await core.ports.worktrees.prepare({
      repo,
      worktreesDir: core.config.worktreesDir,
      roomId: w.room_id,
      taskId: w.task_id,
      title: task.title,
      baseBranch: workspaceRow(db, w.room_id)?.repo_branch ?? null,
      existing: task.worktree,
    });
  } catch (err) {
    const reason = gitReason(err);
    if (db.open) core.ports.taskWakes.recordWorktree(db, w.task_id, { worktree: null, reason });
    return { refused: reason };
  }
  if (!db.open) return { refused: 'the server is shutting down' };
  if (!prepared.worktree) {
    core.ports.taskWakes.recordWorktree(db, w.task_id, { worktree: null, reason: prepared.reason });
    return plain(prepared.reason);
  }
  if (prepared.made !== 'existing' || task.reason !== null) {
    core.ports.taskWakes.recordWorktree(db, w.task_id, { worktree: prepared.worktree, reason: null });
    core.bus.emit({ type: 'board.changed', room: w.room_id });
  }
  if (isInsideHome(core.config.home, prepared.worktree.path)) return { refused: 'the worktree is inside the data home; runners never work there' };
  return { cwd: prepared.worktree.path, worktree: prepared.worktree, worktreeReason: null, homes: [] };
}

export interface ClosedWorkspace {
  /** The commit of what the run left uncommitted, if it left anything. */
  committed: string | null;
  /** Committing failed (the changes are still in the worktree): git's words. */
  problem?: string;
}

/**
 * The run ended: its per-run homes go, and in a worktree what it left uncommitted is committed
 * on the task's branch, by the agent (docs/worktrees.md "Nothing lost between runs").
 */
export async function closeRunWorkspace(core: Core, ws: RunWorkspace, a: AgentRow, wakeId: string): Promise<ClosedWorkspace> {
  for (const h of ws.homes) {
    try {
      h.cleanup();
    } catch {
      // a per-run folder that cannot be removed is left in the temp folder
    }
  }
  if (!ws.worktree) return { committed: null };
  const handle = agentHandle(a);
  try {
    const committed = await core.ports.worktrees.commitLeftovers(ws.worktree, {
      name: handle,
      email: `${a.plate.toLowerCase()}@agents.agent-rooms.invalid`,
      message: `Work left uncommitted by ${handle} when wake ${wakeId} ended\n\nCommitted by Agent Rooms so that nothing is lost between runs (docs/worktrees.md).\n\nAgent-Rooms-Wake: ${wakeId}`,
    });
    return { committed };
  } catch (err) {
    let problem = gitReason(err);
    for (const s of knownSecrets(core)) if (s) problem = problem.split(s).join('***');
    return { committed: null, problem };
  }
}

/**
 * A task's worktree is no longer needed (cancelled, archived, merged): removed now, unless a run
 * still works in it — then that run's end removes it (never under a running run).
 */
export async function retireWorktree(core: Core, taskId: string): Promise<boolean> {
  const { db } = core;
  const task = core.ports.taskWakes.worktreeOf(db, taskId);
  if (!task?.worktree || task.removed) return false;
  const due = task.status === 'cancelled' || task.archived || task.merged;
  if (!due || runningTaskWakes(db, taskId) > 0) return false;
  const repo = workspaceRow(db, task.room)?.local_path ?? task.worktree.path;
  try {
    await core.ports.worktrees.remove(repo, task.worktree);
  } catch (err) {
    core.config.log(`worktree of task ${taskId} not removed: ${gitReason(err)}`);
    return false;
  }
  if (!db.open) return false;
  core.ports.taskWakes.recordWorktree(db, taskId, { removed: true });
  core.bus.emit({ type: 'board.changed', room: task.room });
  return true;
}
