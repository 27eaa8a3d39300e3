import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import { openTestApp, type TestApp } from '../helpers/app.js';
import { ALL_ROUTES } from '../../src-main/core/capabilities.js';
import { junk, edgeString, hugeString, dbConsistency } from '../load/arbitraries.js';

/**
 * Property: every /v1 route (enumerated from ALL_ROUTES, so routes that land later are covered)
 * answers generated and malformed input (bad path ids, non-JSON bodies, wrong types, unknown
 * fields, huge strings, odd unicode, bad credentials) with a status under 500, every 4xx with
 * `{error: {code, message, error_id}}`, and leaves the database consistent.
 *
 * The routes' parsing and validation are the core's own (http/api.ts dispatchApi): they run in
 * process, with the raw headers and bodies as generated (openTestApp `request`). What only the
 * listener does (raw paths on the wire, the event stream that writes its own response) is fuzzed
 * in http-adapter.test.ts "fuzz: what crosses the wire".
 */

const TOTAL_REQUESTS = 1_500;

/** Body keys the routes read; values are drawn realistic or broken. Runner commands are left out on purpose. */
const BODY_KEYS = [
  'name', 'plate_prefix', 'scopes', 'device', 'owner_id', 'role', 'plate', 'mode', 'body', 'mention_targets', 'parent_id',
  'title', 'definition_of_done', 'assignee', 'detail', 'order', 'depends_on', 'focus', 'text', 'local_path', 'repo_url',
  'repo_branch', 'git_token', 'status', 'reason', 'bugs', 'product', 'revoked', 'timeout_ms', 'cwd', 'idempotency_key',
];

describe('fuzzing every /v1 route', () => {
  let s: TestApp;
  const pools: Record<string, string[]> = {};
  let otherToken = '';

  beforeAll(async () => {
    // A home's database file, as the server has: backups and snapshots copy that file.
    s = await openTestApp({ database: 'home', rateLimit: { perSecond: 0, burst: 0 } });
    const a = await s.agent('Route fuzz agent');
    const room = await s.room('Route fuzz');
    await s.join(room, a.plate);
    const other = await s.owner('Bea Other');
    otherToken = other.token;
    const msg = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'seed' });
    const task = await s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'seed', definition_of_done: 'seeded', assignee: a.plate });
    Object.assign(pools, {
      id: [room, room, a.credential_id, a.device_id, 'room_nope'],
      plate: [a.plate, a.plate, 'XX-AGT-000000'],
      taskId: [task.body?.task_id ?? 'task_nope', 'task_nope'],
      host: ['claude-code', 'codex', 'gemini', 'cursor', 'nope'],
      owner_id: [other.owner_id],
      plateValue: [a.plate],
      room: [room],
      messageId: [msg.body?.message_id ?? 'msg_nope'],
    });
  });
  afterAll(async () => s.stop());

  const pathValue = (key: string) =>
    fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...(pools[key] ?? pools.id!)) },
      { weight: 1, arbitrary: edgeString },
      { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
      { weight: 1, arbitrary: fc.constantFrom('..', '.', '%2F', 'a/b', 'x'.repeat(3000)) },
    );

  /** A realistic value for a body key most of the time, else something broken. */
  const valueFor = (k: string): fc.Arbitrary<unknown> => {
    const real: Record<string, unknown[]> = {
      name: ['Ada', 'Build bot'], title: ['Fix the build'], definition_of_done: ['tests pass'], body: ['hello'], text: ['we use SQLite'],
      focus: ['ship v1'], detail: ['more'], plate_prefix: ['AB', 'QA'], role: ['admin', 'member'], mode: ['trust_room', 'blocked'],
      scopes: [['READ', 'WRITE'], ['READ']], device: ['laptop'], owner_id: pools.owner_id!, plate: pools.plateValue!,
      assignee: pools.plateValue!, parent_id: pools.messageId!, mention_targets: [[]], depends_on: [[]], local_path: ['/tmp/x'],
      repo_url: ['https://example.com/r.git'], repo_branch: ['main'], git_token: ['ghp_x'], status: ['todo', 'done'],
      reason: ['because'], bugs: [true, false], product: [true], revoked: [false], timeout_ms: [1000], cwd: ['/tmp'],
      idempotency_key: ['k1'], order: [1],
    };
    return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...(real[k] ?? ['x'])) }, { weight: 1, arbitrary: junk }, { weight: 1, arbitrary: fc.constantFrom('', hugeStringValue) });
  };
  const hugeStringValue = 'é'.repeat(70_000);
  const realisticBody = fc
    .subarray(BODY_KEYS, { maxLength: 7 })
    .chain((keys) => fc.tuple(...keys.map((k) => valueFor(k))).map((vals) => Object.fromEntries(keys.map((k, i) => [k, vals[i]]))));

  const body = fc.oneof(
    { weight: 6, arbitrary: realisticBody },
    { weight: 1, arbitrary: hugeString.map((h) => ({ name: h, body: h, title: h })) },
    { weight: 1, arbitrary: fc.dictionary(fc.oneof(edgeString, fc.string({ maxLength: 12 })), junk, { maxKeys: 4 }) },
    { weight: 1, arbitrary: junk.map((j) => ({ raw: JSON.stringify(j) ?? 'null' })) },
    { weight: 1, arbitrary: fc.constantFrom('{', 'not json', '\u0000', '[1,2', '{"a":', '', 'null', '"str"', '[]').map((raw) => ({ raw })) },
  );

  const auth = fc.oneof(
    { weight: 8, arbitrary: fc.constant('primary') },
    { weight: 1, arbitrary: fc.constant('other') },
    { weight: 1, arbitrary: fc.constantFrom('', 'Bearer ', 'Bearer aro_nope', 'Basic abc', 'Bearer \u00e9') },
  );

  it('answers every route with < 500 and a structured error carrying an error_id', async () => {
    const routes = ALL_ROUTES;
    const runs = Math.max(20, Math.floor(TOTAL_REQUESTS / routes.length));
    const tally: Record<string, Record<number, number>> = {};
    const streamed = new Set<string>();
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      tally[key] = {};
      const keys = [...route.path.matchAll(/:([a-zA-Z]+)/g)].map((m) => m[1]!);
      const params = fc.tuple(...keys.map((k) => pathValue(k)));
      await fc.assert(
        fc.asyncProperty(params, body, auth, fc.boolean(), async (values, b, who, alsoQuery) => {
          let path = route.path;
          keys.forEach((k, i) => (path = path.replace(`:${k}`, enc(values[i]!))));
          if (alsoQuery) path += `?limit=${enc(String(values[0] ?? '-1'))}&before_seq=x&status=%00`;
          const raw = typeof b === 'object' && b && 'raw' in b && Object.keys(b).length === 1 ? String((b as { raw: string }).raw) : JSON.stringify(b);
          fc.pre(Buffer.byteLength(raw) < 1024 * 1024 - 4096);
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (who === 'primary') headers.authorization = `Bearer ${s.ownerToken}`;
          else if (who === 'other') headers.authorization = `Bearer ${otherToken}`;
          else if (who) headers.authorization = who;
          const hasBody = route.method !== 'GET' && route.method !== 'HEAD';
          const res = await s.request(route.method, path, { headers, body: hasBody ? raw : undefined });
          if (res.status === 501 && res.body?.error?.reason === 'needs_http') {
            // The route writes its own response (a stream): not answerable in process, fuzzed over HTTP.
            streamed.add(key);
            return;
          }
          tally[key]![res.status] = (tally[key]![res.status] ?? 0) + 1;
          expect(res.status, `${key} ${path.slice(0, 120)}`).toBeLessThan(500);
          if (res.status >= 400) {
            const parsed = res.body as { error?: { code?: string; message?: string; error_id?: string } };
            expect(parsed.error?.error_id, `${key}: ${JSON.stringify(parsed).slice(0, 200)}`).toMatch(/^err_[0-9A-Z]{26}$/);
            expect(typeof parsed.error?.code).toBe('string');
            expect(typeof parsed.error?.message).toBe('string');
          }
        }),
        { numRuns: runs, endOnFailure: true },
      );
    }
    console.log(
      `fuzzed ${routes.length} routes, ${runs} requests each (status → count):\n` +
        Object.entries(tally)
          .map(([k, v]) => `${k.padEnd(52)} ${JSON.stringify(v)}`)
          .join('\n'),
    );
    // Only the event stream answers by writing its own response; it is fuzzed over HTTP.
    expect([...streamed].filter((k) => k !== 'GET /v1/events')).toEqual([]);
    const c = dbConsistency(s.running.core.db);
    expect(c.integrity).toBe('ok');
    expect(c.foreignKeyViolations).toBe(0);
    expect((await s.api('GET', '/v1/me')).status).toBe(200);
  });
});

/** Percent-encodes any string; a lone surrogate becomes the invalid UTF-8 bytes %ED%A0%80 (a fuzz case of its own). */
function enc(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return encodeURIComponent(v.replace(/[\uD800-\uDFFF]/g, '')) + '%ED%A0%80';
  }
}
