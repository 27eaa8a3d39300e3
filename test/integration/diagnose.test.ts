import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ok, fails, type TestAgent } from '../helpers/server.js';
import { classify } from '../../src-main/core/feedback/classify.js';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';

/** Every column of every evidence row, read through a separate connection. */
function evidenceRows(s: TestApp): Array<Record<string, unknown>> {
  const db = new Database(join(s.home, 'rooms.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT * FROM evidence ORDER BY created_at').all() as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
}

function evidenceOf(s: TestApp, errorId: string): Record<string, any> {
  const row = evidenceRows(s).find((r) => r.error_id === errorId);
  if (!row) throw new Error(`no evidence for ${errorId}`);
  return row;
}

describe('evidence store and diagnose_error', () => {
  let s: TestApp;
  let a: TestAgent;
  let b: TestAgent;
  let ca: AppClient;
  let cb: AppClient;
  let room: string;
  let otherRoom: string;

  beforeAll(async () => {
    s = await openTestApp({ database: 'home' });
    a = await s.agent('Diagnoser');
    b = await s.agent('Bystander');
    room = await s.room('Diag');
    otherRoom = await s.room('Elsewhere');
    await s.join(room, a.plate);
    await s.join(room, b.plate);
    await s.join(otherRoom, b.plate);
    ca = await s.connect(a.credential);
    cb = await s.connect(b.credential);
  });
  afterAll(async () => s.stop());

  it('stores shape, ids and a fingerprint, never a value: a secret planted in every argument', async () => {
    // Built at run time, so the source holds no credential-shaped literal for secret scanners.
    const SECRET = ['ark', 'PLANTEDsecretVALUE0123456789abcdefghijklmnopq'].join('_');
    const probes: Array<[string, Record<string, unknown>]> = [
      // not a member of otherRoom: NOT_MEMBER
      ['send_message', { room: otherRoom, body: SECRET, idempotency_key: SECRET, mention_targets: [SECRET], parent_id: SECRET, [SECRET]: SECRET }],
      // a room id that is itself the secret: NOT_FOUND
      ['read_room', { room: SECRET, limit: 5, [`x-${SECRET}`]: { nested: SECRET } }],
      // wrong types everywhere: INVALID_ARGUMENT
      ['send_message', { room: 42, body: { text: SECRET }, mention_targets: SECRET }],
      ['create_task', { room, title: SECRET, definition_of_done: SECRET, assignee: SECRET, detail: SECRET }],
      ['report_error', { error_id: SECRET, note: SECRET }],
      ['diagnose_error', { error_id: SECRET, tool: SECRET, code: SECRET }],
      ['get_feedback_consent', { plate: SECRET }],
      ['submit_task_feedback', { room, task_id: SECRET, outcome: 'issue', evidence: { tool: SECRET, expected: SECRET, got: SECRET }, issue: SECRET }],
      ['submit_product_feedback', { room: SECRET, answers: { [SECRET]: SECRET } }],
      [SECRET, { anything: SECRET }],
    ];
    const ids: string[] = [];
    for (const [tool, args] of probes) {
      const e = await fails(ca, tool, args);
      expect(e.message).not.toContain(SECRET);
      ids.push(e.error_id);
    }
    const rows = evidenceRows(s).filter((r) => ids.includes(r.error_id as string));
    expect(rows).toHaveLength(probes.length);
    for (const r of rows) {
      expect(JSON.stringify(r)).not.toContain(SECRET);
      expect(JSON.stringify(r)).not.toContain('PLANTED');
      expect(r.plate).toBe(a.plate);
      expect(r.fingerprint).toMatch(/^[0-9a-f]{24}$/);
      expect(r.request_id).toMatch(/^req_/);
      expect(r.surface_version).toBeTypeOf('string');
      expect(r.code).toBeTypeOf('string');
      expect(r.http_status).toBeTypeOf('number');
    }
    const first = evidenceOf(s, ids[0]!);
    expect(first.tool).toBe('send_message');
    expect(first.code).toBe('NOT_MEMBER');
    // The shape names the declared arguments and their types; the undeclared key is only counted.
    expect(JSON.parse(first.arg_shape)).toEqual({
      room: 'string',
      body: 'string',
      idempotency_key: 'string',
      mention_targets: { array: ['string'], length: 1 },
      parent_id: 'string',
      '<unknown keys>': 1,
    });
    // The caller was refused in otherRoom, so that room is not recorded as authorised.
    expect(first.room_id).toBeNull();
    // An unknown tool name is not kept: it is an argument value like any other.
    expect(evidenceOf(s, ids[ids.length - 1]!).tool).toBe('unknown');
  });

  it('records the room id only when the caller is a member of it', async () => {
    const inRoom = await fails(ca, 'send_message', { room, body: 'x', parent_id: 'msg_doesnotexist' });
    expect(evidenceOf(s, inRoom.error_id).room_id).toBe(room);
    const notMember = await fails(ca, 'read_room', { room: otherRoom });
    expect(notMember.code).toBe('NOT_MEMBER');
    expect(evidenceOf(s, notMember.error_id).room_id).toBeNull();
    // The same room, for a member, is recorded.
    const member = await fails(cb, 'read_room', { room: otherRoom, limit: 100_000 });
    expect(evidenceOf(s, member.error_id).room_id).toBe(otherRoom);
  });

  it('the same failure twice has the same fingerprint; a different one does not', async () => {
    const e1 = await fails(ca, 'read_room', { room: otherRoom });
    const e2 = await fails(ca, 'read_room', { room: otherRoom });
    const e3 = await fails(ca, 'read_room', { room: 'room_nope' });
    expect(evidenceOf(s, e1.error_id).fingerprint).toBe(evidenceOf(s, e2.error_id).fingerprint);
    expect(evidenceOf(s, e1.error_id).fingerprint).not.toBe(evidenceOf(s, e3.error_id).fingerprint);
    const d = await ok(ca, 'diagnose_error', { error_id: e2.error_id });
    expect(d.occurrences).toBeGreaterThanOrEqual(2);
  });

  it('classifies each kind of failure and recommends feedback for none of the caller-side ones', async () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['read_room', { room: 7 }, 'INVALID_ARGUMENT', 'caller_misuse'],
      ['read_room', { room: 'room_missing' }, 'NOT_FOUND', 'caller_misuse'],
      ['read_room', { room: otherRoom }, 'NOT_MEMBER', 'permission'],
      ['get_feedback_consent', { plate: b.plate }, 'FORBIDDEN', 'permission'],
      ['set_status', { task_id: 'task_missing', status: 'done' }, '', 'caller_misuse'],
    ];
    for (const [tool, args, code, cls] of cases) {
      const e = await fails(ca, tool, args);
      if (code) expect(e.code).toBe(code);
      const d = await ok(ca, 'diagnose_error', { error_id: e.error_id });
      expect(d.error_id).toBe(e.error_id);
      expect(d.evidence_available).toBe(true);
      expect(d.tool).toBe(tool);
      if (code) expect(d.classification).toBe(cls);
      expect(d.feedback.recommended).toBe(false);
      expect(d.retry.retryable).toBe(false);
      expect(d.steps.length).toBeGreaterThan(0);
      expect(d.doc_url).toBe(`${s.baseUrl}/docs/errors#${e.code}`);
    }
  });

  it('a state conflict is classified as state, with no report recommended', async () => {
    const t = await ok(ca, 'create_task', { room, title: 'T', definition_of_done: 'D', assignee: a.plate });
    const e = await fails(ca, 'set_status', { task_id: t.task_id, status: 'done' });
    expect(e.code).toBe('CONFLICT');
    const d = await ok(ca, 'diagnose_error', { error_id: e.error_id });
    expect(d.classification).toBe('state');
    expect(d.feedback.recommended).toBe(false);
    // The task id is authorised (a task in the caller's room) and kept.
    expect(evidenceOf(s, e.error_id).task_id).toBe(t.task_id);
  });

  it('the rules map every code to a class, transient ones with a retry delay', () => {
    expect(classify({ code: 'RATE_LIMITED' })).toBe('transient');
    expect(classify({ code: 'UNAVAILABLE' })).toBe('transient');
    expect(classify({ code: 'UNAUTHENTICATED' })).toBe('authentication');
    expect(classify({ code: 'INTERNAL' })).toBe('server_fault');
    expect(classify({ code: 'CONSENT_REQUIRED' })).toBe('permission');
    expect(classify({ code: 'PAYLOAD_TOO_LARGE' })).toBe('caller_misuse');
    expect(classify({ code: 'INVALID_ARGUMENT', reason: 'contract_mismatch' })).toBe('contract_mismatch');
    // A tool the specification promises but the server does not know.
    expect(classify({ code: 'NOT_FOUND', reason: 'unknown_tool', tool: 'renew_lease' })).toBe('contract_mismatch');
    expect(classify({ code: 'NOT_FOUND', reason: 'unknown_tool', tool: 'unknown' })).toBe('caller_misuse');
  });

  it('the fallback by tool and code gives advice without evidence and never recommends a report', async () => {
    const d = await ok(ca, 'diagnose_error', { tool: 'send_message', code: 'RATE_LIMITED' });
    expect(d.evidence_available).toBe(false);
    expect(d.classification).toBe('transient');
    expect(d.retry).toEqual({ retryable: true, delay_ms: 1000, max_attempts: 1 });
    expect(d.feedback.recommended).toBe(false);
    const f = await ok(ca, 'diagnose_error', { code: 'INTERNAL' });
    expect(f.classification).toBe('server_fault');
    expect(f.evidence_available).toBe(false);
    expect(f.feedback.recommended).toBe(false);
  });

  it("another agent's error id is NOT_FOUND, and diagnose_error's own failures say not to report them", async () => {
    const mine = await fails(ca, 'read_room', { room: 'room_missing' });
    const e = await fails(cb, 'diagnose_error', { error_id: mine.error_id });
    expect(e.code).toBe('NOT_FOUND');
    expect(e.reason).toBe('diagnose_failed');
    expect(e.message).toMatch(/do not report/);
    const none = await fails(ca, 'diagnose_error', {});
    expect(none.reason).toBe('diagnose_failed');
    const badCode = await fails(ca, 'diagnose_error', { code: 'NOPE' });
    expect(badCode.reason).toBe('diagnose_failed');
    // Diagnosing the failure of diagnose_error: nothing to report, stop.
    const d = await ok(cb, 'diagnose_error', { error_id: e.error_id });
    expect(d.tool).toBe('diagnose_error');
    expect(d.feedback.recommended).toBe(false);
    expect(d.feedback.next_action).toBe('stop');
    // And report_error refuses it even with consent.
    await ok(cb, 'set_feedback_consent', { bugs: true });
    const r = await fails(cb, 'report_error', { error_id: e.error_id });
    expect(r.code).toBe('FORBIDDEN');
    expect(r.reason).toBe('not_reportable');
  });
  // The page at doc_url itself is served by the listener: test/integration/http-adapter.test.ts.
});
