import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ok, fails } from '../helpers/server.js';
import { type TestApp } from '../helpers/app.js';
import { appFor, seatFor } from '../helpers/seat.js';

/**
 * A real server fault, provoked honestly: the test moves the `messages` table aside through
 * its own SQLite connection to the server's rooms.db, so send_message fails inside the server
 * (INTERNAL) exactly as it would on a damaged store. Moving it back is the "fix" after which a
 * retry succeeds. No test-only path exists in the product code.
 */
function withStore<T>(s: TestApp, fn: (db: Database.Database) => T): T {
  const db = new Database(join(s.home, 'rooms.db'), { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return fn(db);
  } finally {
    db.close();
  }
}
const breakMessages = (s: TestApp) => withStore(s, (db) => db.exec('ALTER TABLE messages RENAME TO messages_aside'));
const repairMessages = (s: TestApp) => withStore(s, (db) => db.exec('ALTER TABLE messages_aside RENAME TO messages'));

// Built at run time, so the source holds no credential-shaped literal for secret scanners.
const SECRET_BODY = `deploy with ${['ark', 'SECRETinBODY9876543210zyxwvutsrqponmlkjihgfedc'].join('_')} and the note from alice@example.com`;

describe('error reporting: the six-step sequence of docs/contract.md', () => {
  const s = appFor({ database: 'home' });
  const seat = seatFor(s, 'Reporter', 'Faults');

  it('diagnose, retry once, check consent, ask, record consent, report: the trace comes from evidence only', async () => {
    breakMessages(s);
    let failed: any;
    let again: any;
    try {
      failed = await fails(seat.c, 'send_message', { room: seat.room, body: SECRET_BODY });
      expect(failed.code).toBe('INTERNAL');
      expect(failed.next_action).toBe('diagnose_error');

      // 1. diagnose_error({error_id})
      const d1 = await ok(seat.c, 'diagnose_error', { error_id: failed.error_id });
      expect(d1.classification).toBe('server_fault');
      expect(d1.evidence_available).toBe(true);
      expect(d1.feedback.recommended).toBe(true);
      expect(d1.retry).toEqual({ retryable: true, delay_ms: 2000, max_attempts: 1 });

      // 2. retry once after the stated delay; 3. it fails again, so the flow continues.
      await new Promise((r) => setTimeout(r, d1.retry.delay_ms));
      again = await fails(seat.c, 'send_message', { room: seat.room, body: SECRET_BODY });
      expect(again.code).toBe('INTERNAL');

      // 4. both evidence_available and feedback.recommended
      const d2 = await ok(seat.c, 'diagnose_error', { error_id: again.error_id });
      expect(d2.evidence_available && d2.feedback.recommended).toBe(true);
      expect(d2.fingerprint).toBe(d1.fingerprint);
      expect(d2.occurrences).toBe(2);
      expect(d2.feedback.bug_consent).toBe(false);

      // 5. read bug consent: absent, so report_error is refused until the human's clear yes is recorded.
      const consent = await ok(seat.c, 'get_feedback_consent');
      expect(consent).toMatchObject({ bugs: false, product: false, granted_at: null, revoked: false });
      const refused = await fails(seat.c, 'report_error', { error_id: again.error_id });
      expect(refused.code).toBe('CONSENT_REQUIRED');
      expect(refused.reason).toBe('bug_consent_missing');
      const granted = await ok(seat.c, 'set_feedback_consent', { bugs: true });
      expect(granted.bugs).toBe(true);
      expect(granted.granted_at).toEqual(expect.any(String));

      // 6. report_error: the server builds the trace.
      const rep = await ok(seat.c, 'report_error', {
        error_id: again.error_id,
        impact: 'blocker',
        note: 'send_message failed twice with INTERNAL, so the status update never reached the room.',
      });
      expect(rep).toMatchObject({ recorded: true, duplicate: false, error_id: again.error_id, tool: 'send_message', code: 'INTERNAL', classification: 'server_fault', impact: 'blocker', room: seat.room });
      expect(rep.report_id).toMatch(/^rep_/);
      expect(rep.trace).toMatchObject({
        error_id: again.error_id,
        tool: 'send_message',
        code: 'INTERNAL',
        http_status: 500,
        arg_shape: { room: 'string', body: 'string' },
        room: seat.room,
        fingerprint: d1.fingerprint,
      });
      expect(rep.trace.request_id).toMatch(/^req_/);
      expect(rep.trace.surface_version).toEqual(expect.any(String));
      const wire = JSON.stringify(rep);
      expect(wire).not.toContain('SECRETinBODY');
      expect(wire).not.toContain('alice@example.com');
      expect(wire).not.toMatch(/at .*\.ts:\d+/); // no stack trace

      // Deduplicated by error id: the same call returns the first report.
      const dup = await ok(seat.c, 'report_error', { error_id: again.error_id, impact: 'minor', note: 'A different note.' });
      expect(dup.report_id).toBe(rep.report_id);
      expect(dup.duplicate).toBe(true);
      expect(dup.impact).toBe('blocker');
      expect(dup.note).toBe(rep.note);

      // The first failure of the same incident is another error id: a recurrence of the same fingerprint.
      const rep1 = await ok(seat.c, 'report_error', { error_id: failed.error_id });
      expect(rep1.report_id).not.toBe(rep.report_id);
      expect(rep1.recurrence).toMatchObject({ reports: 2, recurring: true });

      const d3 = await ok(seat.c, 'diagnose_error', { error_id: again.error_id });
      expect(d3.feedback.already_reported).toBe(true);
    } finally {
      repairMessages(s);
    }

    // The owner reads the reports through /v1, without any of the message content.
    const list = await s.api('GET', '/v1/reports');
    expect(list.status).toBe(200);
    const mine = list.body.reports.filter((r: any) => r.plate === seat.agent.plate);
    expect(mine.map((r: any) => r.error_id).sort()).toEqual([failed.error_id, again.error_id].sort());
    expect(JSON.stringify(list.body)).not.toContain('SECRETinBODY');
    // Another owner with no agents and no rooms sees none of them.
    const other = await s.owner('Stranger');
    const theirs = await s.api('GET', '/v1/reports', undefined, other.token);
    expect(theirs.status).toBe(200);
    expect(theirs.body.reports).toEqual([]);
  });

  it('a retried call that succeeds is not reported', async () => {
    await ok(seat.c, 'set_feedback_consent', { bugs: true });
    breakMessages(s);
    let failed: any;
    try {
      failed = await fails(seat.c, 'send_message', { room: seat.room, body: 'status: build green' });
      const d = await ok(seat.c, 'diagnose_error', { error_id: failed.error_id });
      expect(d.feedback.recommended).toBe(true);
    } finally {
      repairMessages(s);
    }
    // The retry (same call) succeeds.
    const sent = await ok(seat.c, 'send_message', { room: seat.room, body: 'status: build green' });
    expect(sent.seq).toBeGreaterThan(0);
    const d = await ok(seat.c, 'diagnose_error', { error_id: failed.error_id });
    expect(d.resolved_by_retry).toBe(true);
    expect(d.feedback.recommended).toBe(false);
    expect(d.feedback.next_action).toBe('stop');
    const r = await fails(seat.c, 'report_error', { error_id: failed.error_id });
    expect(r.code).toBe('FORBIDDEN');
    expect(r.reason).toBe('resolved_by_retry');
    const list = await s.api('GET', '/v1/reports');
    expect(list.body.reports.some((x: any) => x.error_id === failed.error_id)).toBe(false);
  });

  it('refuses caller-side failures, other agents’ error ids and unknown ids', async () => {
    await ok(seat.c, 'set_feedback_consent', { bugs: true });
    const misuse = await fails(seat.c, 'read_room', { room: 'room_missing' });
    const r = await fails(seat.c, 'report_error', { error_id: misuse.error_id });
    expect(r.code).toBe('FORBIDDEN');
    expect(r.reason).toBe('feedback_not_recommended');

    const b = await s.agent('Other');
    await s.join(seat.room, b.plate);
    const cb = await s.connect(b.credential);
    await ok(cb, 'set_feedback_consent', { bugs: true });
    breakMessages(s);
    let theirs: any;
    try {
      theirs = await fails(cb, 'send_message', { room: seat.room, body: 'x' });
    } finally {
      repairMessages(s);
    }
    // Not the caller's: as if it did not exist.
    expect((await fails(seat.c, 'report_error', { error_id: theirs.error_id })).code).toBe('NOT_FOUND');
    expect((await fails(seat.c, 'report_error', { error_id: 'err_01AAAAAAAAAAAAAAAAAAAAAAAA' })).code).toBe('NOT_FOUND');
  });

  it('rejects every kind of sensitive note and accepts ordinary technical notes', async () => {
    await ok(seat.c, 'set_feedback_consent', { bugs: true });
    const faults: string[] = [];
    breakMessages(s);
    try {
      for (let i = 0; i < 4; i++) faults.push((await fails(seat.c, 'send_message', { room: seat.room, body: `n${i}`, parent_id: `p${i}` })).error_id);
    } finally {
      repairMessages(s);
    }
    const sensitive = [
      'token eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJBREEtQUdULTEyMyJ9.c2lnbmF0dXJlLWJ5dGVz was rejected',
      'the credential ark_Xk3jT9qLm2Vb8nR4sW1yZ0aC6dE5fG7hJ2kL4mN9pQ stopped working',
      'api_key=abcd1234efgh failed',
      'password: hunter22 was wrong',
      'Authorization: Bearer abcdefghijklmnop0123 was refused',
      '-----BEGIN PRIVATE KEY----- in the log',
      'AKIAIOSFODNN7EXAMPLE appeared in the output',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789 in config',
      'contact ops@example.com about it',
      'the file /home/alice/project/notes.txt could not be read',
      'the file C:\\Users\\bob\\repo\\x.ts could not be read',
      'the file ~carol/repo/x.ts could not be read',
      'the url https://user:pa55word@example.com/x failed',
      'the url https://example.com/hook?token=abc123def failed',
      'a random blob Zx9Qw3Er7Ty1Ui5Op2As8Df4Gh6Jk0Lz appeared',
      'digest 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 differs',
      'it failed at ```const x = await run();```',
      'the handler did function run() { return 1; } and crashed',
      'the query SELECT body FROM messages WHERE id = 1 failed',
      'the user wrote "please deploy the staging branch tonight and then email the release notes to everyone" and it failed',
      '> this is a quoted message line',
    ];
    for (const note of sensitive) {
      const e = await fails(seat.c, 'report_error', { error_id: faults[0]!, note });
      expect(e.code, note).toBe('INVALID_ARGUMENT');
      expect(e.reason, note).toBe('sensitive_content');
      expect(e.message).not.toContain(note.slice(0, 20));
    }
    const ordinary = [
      'send_message returned INTERNAL twice; the status update was not delivered to the room.',
      'The board update failed after 3 attempts (HTTP 500), so task_01jabcdefghjkmnpqrstvwxyz0 stayed in doing.',
      'Version v1.2.3 of the client saw the failure; retrying after 2.5 s did not help.',
      "It's blocking: the handoff didn't reach the successor, e.g. the review task couldn't start.",
    ];
    for (let i = 0; i < ordinary.length; i++) {
      const rep = await ok(seat.c, 'report_error', { error_id: faults[i]!, note: ordinary[i] });
      expect(rep.recorded).toBe(true);
      expect(rep.note).toBe(ordinary[i]);
    }
  });

  it('ties a report to a task of the caller’s rooms, and the same incident is not accepted twice through task feedback', async () => {
    await ok(seat.c, 'set_feedback_consent', { bugs: true });
    const t = await ok(seat.c, 'create_task', { room: seat.room, title: 'Ship', definition_of_done: 'shipped', assignee: seat.agent.plate });
    await ok(seat.c, 'claim_task', { task_id: t.task_id });
    await ok(seat.c, 'complete_task', { task_id: t.task_id, status: 'failed', reason: 'store fault' });
    const faults: string[] = [];
    breakMessages(s);
    try {
      for (let i = 0; i < 3; i++) faults.push((await fails(seat.c, 'send_message', { room: seat.room, body: 'progress' })).error_id);
    } finally {
      repairMessages(s);
    }
    expect((await fails(seat.c, 'report_error', { error_id: faults[0]!, task_id: 'task_unknown' })).code).toBe('NOT_FOUND');
    const rep = await ok(seat.c, 'report_error', { error_id: faults[0]!, task_id: t.task_id, impact: 'degraded' });
    expect(rep).toMatchObject({ task_id: t.task_id, room: seat.room, impact: 'degraded' });
    const issue = {
      room: seat.room,
      task_id: t.task_id,
      outcome: 'issue',
      evidence: { tool: 'send_message', expected: 'the message is posted', got: 'INTERNAL' },
      issue: 'Posting progress failed with a server fault. The room never saw the update. The task failed as a result.',
      recommended_fix: 'Keep the messages table intact. Check the store at start-up. Report the damage to the owner.',
      severity: 'blocker',
      origin: 'agent_noticed',
    };
    // Already sent through report_error: not again as task feedback.
    const dup = await fails(seat.c, 'submit_task_feedback', { ...issue, error_id: faults[0]! });
    expect(dup.code).toBe('CONFLICT');
    expect(dup.reason).toBe('already_reported');
    // Sent as task feedback first: report_error then refuses it.
    const fb = await ok(seat.c, 'submit_task_feedback', { ...issue, error_id: faults[1]! });
    expect(fb.error_id).toBe(faults[1]);
    const twice = await fails(seat.c, 'report_error', { error_id: faults[1]! });
    expect(twice.reason).toBe('already_reported');
    expect((await ok(seat.c, 'report_error', { error_id: faults[2]! })).recorded).toBe(true);
  });
});
