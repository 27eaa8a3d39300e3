import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openMemoryCore, type MemoryCore } from '../helpers/memory-core.js';
import type { Db } from '../../src-main/core/db/open.js';
import type { WakeStatus } from '../../shared/api-types.js';
import { wakeStatus } from '../../shared/schemas/wakes.js';
import {
  dropHeld,
  dropQueued,
  enqueueWake,
  failLeftRunning,
  finishWake,
  getWake,
  handleWakesOnAct,
  holdWake,
  markPull,
  markRunning,
  mergeQueuedMentions,
  releaseHeld,
  requeueChannelWake,
} from '../../src-main/core/wakes/store.js';
import { ENDED_WAKE_STATUSES, WAKE_TRANSITIONS, wakeTransitionsMarkdown, type WakeAct } from '../../src-main/core/wakes/transitions.js';

/**
 * The wake transition table (wakes/transitions.ts, docs/wakes.md "Statuses") row by row: each act,
 * applied through its store function to a real wake row of every status, moves exactly the rows the
 * table names to the row's status and leaves every other one as it was.
 */

const PLATE = 'plt_transitions';
const ROOM = 'room_transitions';
const INSTANCE = `runner:${PLATE}:claude-code`;

let m: MemoryCore;
let db: Db;
let n = 0;

beforeEach(() => {
  m = openMemoryCore();
  db = m.core.db;
  // The rows stand alone: the table is about a wake's status, not about its agent and room.
  db.pragma('foreign_keys = OFF');
});
afterEach(() => m.close());

/** A wake in `status` (for `running` on a channel of INSTANCE, for `queued` parked or not). */
function wakeIn(status: WakeStatus, opts: { pull?: boolean } = {}): string {
  const id = enqueueWake(db, { plate: PLATE, roomId: ROOM, trigger: 'mention', content: 'hi', eventKey: `msg:${++n}`, pull: opts.pull })!;
  if (status === 'queued') return id;
  if (status === 'running' || status === 'handled' || status === 'failed') {
    expect(markRunning(db, id, { target: 'channel', host: 'claude-code', instanceId: INSTANCE, contextVersion: 0 })).toBe(true);
    if (status === 'handled' || status === 'failed') expect(finishWake(db, id, status, status === 'failed' ? 'test' : null)).toBe(true);
  } else if (status === 'held') {
    expect(holdWake(db, id, 'loop_guard')).toBe(true);
  } else if (status === 'merged') {
    // A lead older than it, whose run it joins.
    db.prepare("UPDATE wakes SET status = 'merged', merged_into = 'lead' WHERE id = ?").run(id);
  }
  return id;
}

const statusOf = (id: string) => getWake(db, id)!.status;

/** Applies the act to the wake `id` through the store function the table names. */
function apply(act: WakeAct, id: string): void {
  const w = getWake(db, id)!;
  switch (act) {
    case 'start':
      markRunning(db, id, { target: 'runner', host: 'claude-code', instanceId: 'runner:other:claude-code', contextVersion: 0 });
      return;
    case 'park_for_pull':
      markPull(db, PLATE, ROOM);
      return;
    case 'hold':
      holdWake(db, id, 'budget');
      return;
    case 'release':
      releaseHeld(db, id, 'own_x');
      return;
    case 'drop_held':
      dropHeld(db, id, 'own_x');
      return;
    case 'merge': {
      // A lead older than every wake of the test, queued in another agent's name so nothing else moves.
      mergeQueuedMentions(db, { ...w, seq: 0, id: 'lead' });
      return;
    }
    case 'refuse_at_start':
      dropQueued(db, id, 'the agent left the room');
      return;
    case 'run_handled':
      finishWake(db, id, 'handled', null);
      return;
    case 'run_failed':
      finishWake(db, id, 'failed', 'exit 1');
      return;
    case 'channel_acted':
      handleWakesOnAct(db, INSTANCE, PLATE, ROOM);
      return;
    case 'pull_acted':
      // An act from another instance (or none): only the wakes parked for pull are its.
      handleWakesOnAct(db, undefined, PLATE, ROOM);
      return;
    case 'requeue_channel':
      requeueChannelWake(db, id, 'never taken');
      return;
    case 'server_restarted':
      failLeftRunning(db, 'server restarted while the wake was running');
      return;
  }
}

describe('the wake transition table', () => {
  it('names every status, and each act once', () => {
    const acts = WAKE_TRANSITIONS.map((t) => t.act);
    expect(new Set(acts).size).toBe(acts.length);
    const reached = new Set(WAKE_TRANSITIONS.flatMap((t) => [...t.from, t.to]));
    expect([...reached].sort()).toEqual([...wakeStatus.options].sort());
    // No act leaves an ended status.
    for (const t of WAKE_TRANSITIONS) for (const s of ENDED_WAKE_STATUSES) expect(t.from, t.act).not.toContain(s);
  });

  for (const row of WAKE_TRANSITIONS) {
    it(`${row.act}: ${row.from.join('|')} → ${row.to} (${row.store}), and no other status moves`, () => {
      for (const status of wakeStatus.options) {
        // The inbox acts apply to wakes parked for pull; the others to wakes any target may hold.
        const id = wakeIn(status, { pull: row.act === 'pull_acted' });
        apply(row.act, id);
        const after = statusOf(id);
        if (row.from.includes(status)) expect(after, `${row.act} on ${status}`).toBe(row.to);
        else expect(after, `${row.act} must not move a ${status} wake`).toBe(status);
        if (row.act === 'park_for_pull' && status === 'queued') expect(getWake(db, id)!.target).toBe('pull');
      }
    });
  }

  it('an act applies once: the second of two races changes nothing', () => {
    const id = wakeIn('held');
    expect(releaseHeld(db, id, 'own_a')).toBe(true);
    expect(dropHeld(db, id, 'own_b')).toBe(false);
    expect(statusOf(id)).toBe('queued');
  });

  it('docs/wakes.md shows the table as the code has it', () => {
    const doc = readFileSync(new URL('../../docs/wakes.md', import.meta.url), 'utf8');
    expect(doc).toContain(wakeTransitionsMarkdown());
  });
});
