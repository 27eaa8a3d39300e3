import type { WakeStatus } from '../../../shared/api-types.js';

/**
 * The wake status transitions (docs/wakes.md "Statuses"), as data, like the task table
 * (tasks/transitions.ts). Each row is one act of the server or a human on one wake: the
 * statuses it applies to, the status after it, and the store function that applies it with one
 * conditional UPDATE (`… WHERE status = <from>`), so a wake moves once however many acts race.
 * test/unit/wake-transitions.test.ts applies every row to a real row of each status and checks
 * the store moves exactly the rows the table names, and that docs/wakes.md shows this table.
 */

export type WakeAct =
  | 'start'
  | 'park_for_pull'
  | 'hold'
  | 'release'
  | 'drop_held'
  | 'merge'
  | 'refuse_at_start'
  | 'run_handled'
  | 'run_failed'
  | 'channel_acted'
  | 'pull_acted'
  | 'requeue_channel'
  | 'server_restarted';

export interface WakeTransition {
  act: WakeAct;
  /** The statuses the act applies to; on any other the store changes nothing. */
  from: readonly WakeStatus[];
  to: WakeStatus;
  /** Who acts and when, in words (docs/wakes.md shows it). */
  when: string;
  /** The store function (wakes/store.ts) that applies it. */
  store: string;
}

export const WAKE_TRANSITIONS: readonly WakeTransition[] = [
  { act: 'start', from: ['queued'], to: 'running', when: 'the dispatcher starts it on a free queue key', store: 'markRunning' },
  { act: 'park_for_pull', from: ['queued'], to: 'queued', when: 'nothing can take it: it waits in the inbox (target pull)', store: 'markPull' },
  { act: 'hold', from: ['queued'], to: 'held', when: 'the loop guard or the budget stops it before it starts', store: 'holdWake' },
  { act: 'release', from: ['held'], to: 'queued', when: 'a human releases it (first in its queue again)', store: 'releaseHeld' },
  { act: 'drop_held', from: ['held'], to: 'failed', when: 'a human drops it (reason `dropped`)', store: 'dropHeld' },
  { act: 'merge', from: ['queued'], to: 'merged', when: 'it joins the run of an older mention of the same agent and room', store: 'mergeQueuedMentions' },
  { act: 'refuse_at_start', from: ['queued'], to: 'failed', when: 'a check at start refuses it (revoked, left, no INVOKE, no Trust)', store: 'dropQueued' },
  { act: 'run_handled', from: ['running'], to: 'handled', when: 'its run ends and did the work', store: 'finishWake' },
  { act: 'run_failed', from: ['running'], to: 'failed', when: 'its run fails, times out or is stopped', store: 'finishWake' },
  { act: 'channel_acted', from: ['running'], to: 'handled', when: 'the channel session it was pushed to acts in the room', store: 'handleWakesOnAct' },
  { act: 'pull_acted', from: ['queued'], to: 'handled', when: 'the agent acts in the room while it waits in the inbox', store: 'handleWakesOnAct' },
  { act: 'requeue_channel', from: ['running'], to: 'queued', when: 'the channel session never took it: back to its queue', store: 'requeueChannelWake' },
  { act: 'server_restarted', from: ['running'], to: 'failed', when: 'the server died while it ran: failed, never run again', store: 'failLeftRunning' },
];

/** The statuses no act leaves: a wake there has ended. */
export const ENDED_WAKE_STATUSES: readonly WakeStatus[] = ['handled', 'failed', 'merged'];

export function wakeTransition(act: WakeAct): WakeTransition {
  const row = WAKE_TRANSITIONS.find((t) => t.act === act);
  if (!row) throw new Error(`no wake transition ${act}`);
  return row;
}

/** The table as docs/wakes.md shows it (Markdown). */
export function wakeTransitionsMarkdown(): string {
  const lines = ['| act | from | to | when | store |', '| --- | --- | --- | --- | --- |'];
  for (const t of WAKE_TRANSITIONS) lines.push(`| \`${t.act}\` | ${t.from.map((s) => `\`${s}\``).join(', ')} | \`${t.to}\` | ${t.when} | \`${t.store}\` |`);
  return lines.join('\n');
}
