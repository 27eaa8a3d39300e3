import { describe, it, expect, beforeAll } from 'vitest';
import { ok, fails, type TestAgent } from '../helpers/server.js';
import { type AppClient } from '../helpers/app.js';
import { appFor, seatFor } from '../helpers/seat.js';

const ISSUE =
  'The read_board result omitted blocked_by for tasks whose prerequisite was cancelled. The lane showed the task as claimable. A claim then failed with blocked_by_deps.';
const FIX =
  'Compute blocked_by from every open prerequisite. Treat a cancelled prerequisite as open until it is removed. Show that state in read_board.';
const EVIDENCE = { tool: 'read_board', expected: 'blocked_by lists the open prerequisite', got: 'blocked_by was an empty list' };

describe('task feedback and product feedback', () => {
  const s = appFor();
  // The worker's seat (its agent, the room, its client) and a peer in the same room.
  const worker = seatFor(s, 'Worker', 'Work');
  let b: TestAgent;
  let cb: AppClient;

  beforeAll(async () => {
    b = await s.agent('Peer');
    await s.join(worker.room, b.plate);
    cb = await s.connect(b.credential);
  });

  /** A task of the caller taken through claim to the given end state. */
  async function finished(c: AppClient, plate: string, end: 'done' | 'failed' | 'blocked', via: 'complete' | 'set_status' = 'complete') {
    const t = await ok(c, 'create_task', { room: worker.room, title: `T ${end}`, definition_of_done: 'it works', assignee: plate });
    await ok(c, 'claim_task', { task_id: t.task_id });
    if (via === 'complete') {
      await ok(c, 'complete_task', end === 'done' ? { task_id: t.task_id, status: 'done', handoff_notes: 'all good' } : { task_id: t.task_id, status: end, reason: 'stuck' });
    } else {
      await ok(c, 'set_status', { task_id: t.task_id, status: end, reason: 'stuck' });
    }
    return t.task_id as string;
  }

  const issueArgs = (taskId: string, extra: Record<string, unknown> = {}) => ({
    room: worker.room,
    task_id: taskId,
    outcome: 'issue',
    evidence: EVIDENCE,
    issue: ISSUE,
    recommended_fix: FIX,
    severity: 'degraded',
    origin: 'agent_noticed',
    ...extra,
  });

  it('clean right after complete_task(done) needs no consent; repeating returns the first', async () => {
    const taskId = await finished(worker.c, worker.agent.plate, 'done');
    const fb = await ok(worker.c, 'submit_task_feedback', { room: worker.room, task_id: taskId, outcome: 'clean' });
    expect(fb).toMatchObject({ recorded: true, outcome: 'clean', task_status: 'done', task_id: taskId, duplicate: false, evidence: null });
    const again = await ok(worker.c, 'submit_task_feedback', { room: worker.room, task_id: taskId, outcome: 'clean' });
    expect(again.feedback_id).toBe(fb.feedback_id);
    expect(again.duplicate).toBe(true);
  });

  it('only right after a completion or failure, and only by the assignee', async () => {
    const t = await ok(worker.c, 'create_task', { room: worker.room, title: 'open', definition_of_done: 'x', assignee: worker.agent.plate });
    const early = await fails(worker.c, 'submit_task_feedback', { room: worker.room, task_id: t.task_id, outcome: 'clean' });
    expect(early.code).toBe('CONFLICT');
    expect(early.reason).toBe('not_after_completion');
    await ok(worker.c, 'claim_task', { task_id: t.task_id });
    expect((await fails(worker.c, 'submit_task_feedback', { room: worker.room, task_id: t.task_id, outcome: 'clean' })).reason).toBe('not_after_completion');

    const done = await finished(worker.c, worker.agent.plate, 'done');
    const notMine = await fails(cb, 'submit_task_feedback', { room: worker.room, task_id: done, outcome: 'clean' });
    expect(notMine.code).toBe('FORBIDDEN');
    expect((await fails(worker.c, 'submit_task_feedback', { room: worker.room, task_id: 'task_nope', outcome: 'clean' })).code).toBe('NOT_FOUND');
    const outsider = await s.agent('Outsider');
    const co = await s.connect(outsider.credential);
    expect((await fails(co, 'submit_task_feedback', { room: worker.room, task_id: done, outcome: 'clean' })).code).toBe('NOT_MEMBER');
  });

  it('set_status(failed) and set_status(blocked) open task feedback too', async () => {
    const failed = await finished(worker.c, worker.agent.plate, 'failed', 'set_status');
    expect(await ok(worker.c, 'submit_task_feedback', { room: worker.room, task_id: failed, outcome: 'clean' })).toMatchObject({ task_status: 'failed' });
    const blocked = await finished(worker.c, worker.agent.plate, 'blocked', 'set_status');
    expect(await ok(worker.c, 'submit_task_feedback', { room: worker.room, task_id: blocked, outcome: 'clean' })).toMatchObject({ task_status: 'blocked' });
  });

  it('an issue needs bug consent, cited evidence, 3-4 + 3 sentences, severity and origin', async () => {
    const taskId = await finished(worker.c, worker.agent.plate, 'failed');
    await ok(worker.c, 'set_feedback_consent', { revoked: true });
    const noConsent = await fails(worker.c, 'submit_task_feedback', issueArgs(taskId));
    expect(noConsent.code).toBe('CONSENT_REQUIRED');
    expect(noConsent.reason).toBe('bug_consent_missing');
    await ok(worker.c, 'set_feedback_consent', { bugs: true });

    const { evidence: _e, ...noEvidence } = issueArgs(taskId);
    expect((await fails(worker.c, 'submit_task_feedback', noEvidence)).reason).toBe('evidence_missing');
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ issue: 'Too short. Only two.' }, 'sentence_count'],
      [{ issue: 'One. Two. Three. Four. Five.' }, 'sentence_count'],
      [{ recommended_fix: 'Do this. Then that.' }, 'sentence_count'],
      [{ recommended_fix: 'One. Two. Three. Four.' }, 'sentence_count'],
      [{ evidence: { ...EVIDENCE, got: 'the reply contained ark_Q9x7Lm2Vb8nR4sW1yZ0aC6dE5fG7hJ2kL4mN9pQxx' } }, 'sensitive_content'],
      [{ issue: 'It broke for bob@example.com. Then again. And again.' }, 'sensitive_content'],
    ];
    for (const [extra, reason] of bad) {
      const e = await fails(worker.c, 'submit_task_feedback', issueArgs(taskId, extra));
      expect(e.code, JSON.stringify(extra)).toBe('INVALID_ARGUMENT');
      expect(e.reason, JSON.stringify(extra)).toBe(reason);
    }
    for (const missing of ['severity', 'origin', 'issue', 'recommended_fix']) {
      const args: Record<string, unknown> = issueArgs(taskId);
      delete args[missing];
      expect((await fails(worker.c, 'submit_task_feedback', args)).code, missing).toBe('INVALID_ARGUMENT');
    }
    expect((await fails(worker.c, 'submit_task_feedback', issueArgs(taskId, { severity: 'critical' }))).code).toBe('INVALID_ARGUMENT');
    expect((await fails(worker.c, 'submit_task_feedback', issueArgs(taskId, { origin: 'guess' }))).code).toBe('INVALID_ARGUMENT');

    // Sentence counting keeps abbreviations, decimals and versions inside their sentence.
    const fb = await ok(
      worker.c,
      'submit_task_feedback',
      issueArgs(taskId, {
        issue: 'The board, e.g. the done view, lost 3.14 percent of tasks. It happened on v1.2.3 of the client... and again later. Dr. Rivers saw the same thing, i.e. the lane was empty.',
      }),
    );
    expect(fb).toMatchObject({ recorded: true, outcome: 'issue', severity: 'degraded', origin: 'agent_noticed', evidence: EVIDENCE, kind: 'task' });
    expect(fb.fingerprint).toMatch(/^[0-9a-f]{24}$/);
    expect(fb.recurrence).toEqual({ count: 1, recurring: false });
  });

  it('fingerprints issues and flags a recurrence of the same problem', async () => {
    await ok(worker.c, 'set_feedback_consent', { bugs: true });
    await ok(cb, 'set_feedback_consent', { bugs: true });
    const t1 = await finished(cb, b.plate, 'blocked');
    const first = await ok(cb, 'submit_task_feedback', issueArgs(t1, { evidence: { tool: 'claim_task', expected: 'claimed true', got: 'CONFLICT after 12 attempts' } }));
    const t2 = await finished(worker.c, worker.agent.plate, 'done');
    const second = await ok(worker.c, 'submit_task_feedback', issueArgs(t2, { evidence: { tool: 'claim_task', expected: 'claimed  TRUE', got: 'CONFLICT after 3 attempts' } }));
    expect(second.fingerprint).toBe(first.fingerprint);
    expect(second.recurrence).toEqual({ count: 2, recurring: true });
    const t3 = await finished(worker.c, worker.agent.plate, 'done');
    const different = await ok(worker.c, 'submit_task_feedback', issueArgs(t3, { evidence: { tool: 'read_room', expected: 'oldest first', got: 'newest first' } }));
    expect(different.fingerprint).not.toBe(first.fingerprint);
    expect(different.recurrence.recurring).toBe(false);
  });

  it('legacy: a contract mismatch without an error id, with evidence and bug consent', async () => {
    await ok(worker.c, 'set_feedback_consent', { revoked: true });
    const args = { room: worker.room, outcome: 'issue', contract_mismatch: true, evidence: { tool: 'read_board', expected: 'lanes and done view', got: 'only lanes' } };
    expect((await fails(worker.c, 'submit_task_feedback', args)).code).toBe('CONSENT_REQUIRED');
    await ok(worker.c, 'set_feedback_consent', { bugs: true });
    const { evidence: _e, ...noEvidence } = args;
    expect((await fails(worker.c, 'submit_task_feedback', noEvidence)).reason).toBe('evidence_missing');
    expect((await fails(worker.c, 'submit_task_feedback', { ...args, evidence: { ...args.evidence, got: 'see /home/alice/out.json' } })).reason).toBe('sensitive_content');
    expect((await fails(worker.c, 'submit_task_feedback', { ...args, outcome: 'clean' })).code).toBe('INVALID_ARGUMENT');
    const fb = await ok(worker.c, 'submit_task_feedback', args);
    expect(fb).toMatchObject({ recorded: true, kind: 'contract_mismatch', outcome: 'issue', task_id: null, evidence: args.evidence });
  });

  it('humans read a room’s task feedback through /v1; non-members do not', async () => {
    const r = await s.api('GET', `/v1/rooms/${worker.room}/feedback`);
    expect(r.status).toBe(200);
    expect(r.body.task_feedback.length).toBeGreaterThanOrEqual(6);
    expect(r.body.task_feedback.some((f: any) => f.kind === 'contract_mismatch')).toBe(true);
    expect(r.body.task_feedback.every((f: any) => f.room === worker.room)).toBe(true);
    const other = await s.owner('Nosy');
    expect((await s.api('GET', `/v1/rooms/${worker.room}/feedback`, undefined, other.token)).status).toBe(404);
  });

  it('product feedback: consent, then the gate of 3 completed tasks and once per session; declines are not errors', async () => {
    const p = await s.agent('Producer');
    await s.join(worker.room, p.plate);
    const cp = await s.connect(p.credential);
    const noConsent = await fails(cp, 'submit_product_feedback', { room: worker.room, answers: 'no notes' });
    expect(noConsent.code).toBe('CONSENT_REQUIRED');
    expect(noConsent.reason).toBe('product_consent_missing');
    await ok(cp, 'set_feedback_consent', { product: true });

    const early: any = await cp.callTool({ name: 'submit_product_feedback', arguments: { room: worker.room, answers: 'no notes' } });
    expect(early.isError).toBeFalsy();
    expect(early.structuredContent).toMatchObject({ recorded: false, reason: 'too_few_completed_tasks' });

    // Failed and blocked tasks do not count; done ones do.
    await finished(cp, p.plate, 'failed');
    await finished(cp, p.plate, 'done');
    await finished(cp, p.plate, 'done');
    expect((await ok(cp, 'submit_product_feedback', { room: worker.room, answers: 'no notes' })).reason).toBe('too_few_completed_tasks');
    await finished(cp, p.plate, 'done');

    expect((await fails(cp, 'submit_product_feedback', { room: worker.room, answers: { 'What slowed you down?': 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789' } })).reason).toBe('sensitive_content');
    const rec = await ok(cp, 'submit_product_feedback', { room: worker.room, answers: { 'What slowed you down?': 'Reading the whole board every turn.' } });
    expect(rec).toMatchObject({ recorded: true, no_notes: false });
    const twice = await ok(cp, 'submit_product_feedback', { room: worker.room, answers: 'no notes' });
    expect(twice).toMatchObject({ recorded: false, reason: 'already_sent_this_session' });

    // A new session (a new instance) may send once more; "no notes" is a valid answer.
    const cp2 = await s.connect(p.credential);
    const noNotes = await ok(cp2, 'submit_product_feedback', { room: worker.room, answers: 'no notes' });
    expect(noNotes).toMatchObject({ recorded: true, no_notes: true });

    // The room's feedback page shows both.
    const r = await s.api('GET', `/v1/rooms/${worker.room}/feedback`);
    const mine = r.body.product_feedback.filter((f: any) => f.plate === p.plate);
    expect(mine.map((f: any) => f.answers)).toEqual(expect.arrayContaining(['no notes', { 'What slowed you down?': 'Reading the whole board every turn.' }]));
    expect(mine).toHaveLength(2);
  });
});
