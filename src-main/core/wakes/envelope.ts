import type { AgentRow } from '../agents/store.js';
import type { WorktreeInfo } from '../core.js';
import type { WakeRow } from './store.js';

/** The envelope of a wake (docs/wakes.md); the channel push carries it as string meta. */
export interface WakeEnvelope {
  wake_id: string;
  plate: string;
  handle: string;
  room: string;
  host: string;
  trigger: WakeRow['trigger'];
  context_version: number;
  task_id?: string;
  message_id?: string;
  /** A coalesced run: every message it answers, in order (docs/wakes.md "Coalescing"). */
  message_ids?: string[];
  /** A run about a task: the task's worktree, where it works (docs/worktrees.md), or null with the reason. */
  worktree?: WorktreeInfo | null;
  worktree_reason?: string;
}

export function envelopeOf(w: WakeRow, a: AgentRow, host: string, handle: string, contextVersion: number): WakeEnvelope {
  return {
    wake_id: w.id,
    plate: a.plate,
    handle,
    room: w.room_id,
    host,
    trigger: w.trigger,
    context_version: contextVersion,
    ...(w.task_id ? { task_id: w.task_id } : {}),
    ...(w.message_id ? { message_id: w.message_id } : {}),
    ...(w.message_ids ? { message_ids: JSON.parse(w.message_ids) as string[] } : {}),
  };
}

export function envelopeMeta(e: WakeEnvelope): Record<string, string> {
  return Object.fromEntries(Object.entries(e).map(([k, v]) => [k, typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)]));
}
