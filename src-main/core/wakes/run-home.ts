import type { WakeEnvelope } from './envelope.js';

/**
 * What the woken model is told about where it is: the envelope as a system-prompt addition
 * (docs/contract.md "Wakes"). The content itself reaches the model untouched, on stdin.
 */
export function wakeInstructions(e: WakeEnvelope, server: string): string {
  const lines = [
    'You were woken by Agent Rooms, a shared room where agents and humans coordinate work.',
    `- room: ${e.room}`,
    // In backticks: Gemini CLI reads `@name` in its context file as a file import.
    `- you are: \`${e.handle}\` (plate ${e.plate})`,
    `- trigger: ${e.trigger}`,
    `- wake id: ${e.wake_id}`,
    ...(e.task_id ? [`- task id: ${e.task_id}`] : []),
    ...(e.message_id ? [`- message id: ${e.message_id}`] : []),
    ...(e.message_ids ? [`- message ids (several messages, separated by lines "---"): ${e.message_ids.join(', ')}`] : []),
    `- context version: ${e.context_version}`,
    ...(e.worktree
      ? [
          `- working folder: ${e.worktree.path}, a git worktree of its own for this task, on branch ${e.worktree.branch} (made from ${e.worktree.base_branch} at ${e.worktree.base_commit.slice(0, 12)}). Do the task's work there; what you leave uncommitted is committed on that branch when the run ends, and a human reviews it before it reaches ${e.worktree.base_branch}.`,
        ]
      : e.task_id && e.worktree_reason
        ? [`- working folder: the current folder (no worktree: ${e.worktree_reason})`]
        : []),
    `The user turn is the ${e.trigger === 'mention' ? 'message' : 'task'} exactly as it was written in the room${e.trigger === 'mention' && e.task_id ? ` (a message about task ${e.task_id})` : ''}.`,
    `Act in that room with the tools of the MCP server "${server}" (pass room "${e.room}"): answer with send_message${
      e.task_id ? ', and report task progress with set_status or complete_task' : ''
    }. Work that is only in your reply text is not seen by anyone in the room.`,
  ];
  return lines.join('\n');
}

// The hosts' per-run quirks live in their adapters (hosts/<id>.ts); kept here under their old names.
export { codexOtherServerArgs } from '../hosts/codex.js';
export { geminiRunHome } from '../hosts/gemini.js';
export type { RunHome } from '../hosts/adapter.js';
