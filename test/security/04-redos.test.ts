// Item 4: ReDoS in the feedback filter. Patterns such as `SELECT\s+.+\s+FROM\s` backtracked
// cubically: one 30 KB note froze the event loop for seconds. The attack is the adversarial
// string. The filter's time per KB on adversarial input is bounded by comparing it with the
// time per KB of the same filter on ordinary prose, measured in the same test (no absolute
// timing threshold): a linear filter stays within a constant factor, a backtracking one grows
// with the input and leaves it far behind. Also: the cheap consent gate runs before the filter.
import { describe, it, expect, beforeAll } from 'vitest';
import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import { findSensitive } from '../../src-main/core/feedback/sensitive.js';
import { ok, fails } from '../helpers/server.js';
import { appFor, seatFor } from '../helpers/seat.js';

const SIZE = 16 * 1024;
/** How much slower per KB than prose adversarial input may be. A backtracking pattern is off by 100s to 1000s at this size. */
const FACTOR = 40;

const repeatTo = (unit: string, size = SIZE) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** The fastest of a few runs: the least disturbed by other work on the machine. */
function timeOf(text: string, runs = 5): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    findSensitive(text);
    best = Math.min(best, performance.now() - t0);
  }
  return Math.max(best, 0.001);
}

const PROSE = repeatTo(
  'The board update failed after three attempts and the task stayed in the doing lane while the reviewer waited for the handoff. ' +
    'Retrying later did not help, so the successor never started its work and the lane looked stuck for most of the afternoon. ',
);

/** Inputs that made the old patterns backtrack (each named by the pattern it attacked). */
const ADVERSARIAL: Array<[string, string]> = [
  ['SELECT … FROM', repeatTo('SELECT ')],
  ['SELECT with tabs', repeatTo('SELECT \t')],
  ['SELECT over lines', repeatTo('SELECT\n')],
  ['import … from', repeatTo('import a ')],
  ['import over lines', repeatTo('import\n')],
  ['return …;', repeatTo('return ')],
  ['return and blanks', 'return' + ' '.repeat(SIZE)],
  ['JWT', repeatTo('eyJ')],
  ['JWT segments', repeatTo('eyJaaaaa.')],
  ['scheme://', repeatTo('a')],
  ['credential URL', repeatTo('a://b:')],
  ['email', repeatTo('a.')],
  ['email domains', repeatTo('@a-')],
  ['token trim', '='.repeat(SIZE) + 'a'],
  ['token trim, mixed', repeatTo('-=/') + 'x'],
  ['quoted line', '\n'.repeat(SIZE) + 'x'],
  ['quoted line, blanks', repeatTo(' \n')],
  ['curly quotes', repeatTo('“')],
  ['straight quotes', '"' + 'a'.repeat(SIZE)],
  ['backticks', '`' + 'a '.repeat(SIZE / 2)],
  ['private key', '-----BEGIN ' + repeatTo('A ')],
  ['secret assignment', repeatTo('token ')],
  ['user path', repeatTo(' ~a')],
  ['bearer', repeatTo('bearer ')],
];

describe('item 4: the feedback filter runs in linear time', () => {
  let perKbProse: number;
  beforeAll(() => {
    findSensitive(PROSE); // warm the regular expressions
    perKbProse = timeOf(PROSE, 9) / (PROSE.length / 1024);
  });

  it.each(ADVERSARIAL)('%s: within a constant factor of prose per KB', (_name, text) => {
    const perKb = timeOf(text) / (text.length / 1024);
    expect(perKb).toBeLessThan(FACTOR * perKbProse);
  });

  it('random mixes of the attacking fragments stay within the bound (fast-check)', () => {
    const fragment = fc.constantFrom(
      'SELECT ', 'FROM', 'import ', 'from', 'return ', ';', '.', 'eyJ', 'aaaaa', '://', ':', '@', 'a-', '=', '-', '/',
      '\n', ' ', '\t', '“', '”', '"', '`', '>', '~', '-----BEGIN ', 'A ', 'token', 'bearer ', '{', '(', 'x',
    );
    fc.assert(
      fc.property(fc.array(fragment, { minLength: 1, maxLength: 12 }), (parts) => {
        const text = repeatTo(parts.join(''));
        const perKb = timeOf(text, 3) / (text.length / 1024);
        return perKb < FACTOR * perKbProse;
      }),
      { numRuns: 60 },
    );
  });
});

describe('item 4: cheap gates before the filter', () => {
  const s = appFor();
  const seat = seatFor(s, 'Reporter', 'Feedback');

  it('an issue without bug consent is refused before its text is filtered', async () => {
    const t = await ok(seat.c, 'create_task', { room: seat.room, title: 'T', definition_of_done: 'it works', assignee: seat.agent.plate });
    await ok(seat.c, 'claim_task', { task_id: t.task_id });
    await ok(seat.c, 'complete_task', { task_id: t.task_id, status: 'failed', reason: 'stuck' });
    await ok(seat.c, 'set_feedback_consent', { revoked: true });
    const e = await fails(seat.c, 'submit_task_feedback', {
      room: seat.room,
      task_id: t.task_id,
      outcome: 'issue',
      // Text the filter would refuse: the consent gate must answer first, without reading it.
      evidence: { tool: 'read_board', expected: 'x', got: 'SELECT body FROM messages WHERE id = 1' },
      issue: 'One thing broke. Then another. Then a third.',
      recommended_fix: 'Fix one. Fix two. Fix three.',
      severity: 'minor',
      origin: 'agent_noticed',
    });
    expect(e.code).toBe('CONSENT_REQUIRED');
  });
});
