// Issue 26 F1, N1, N2, F9: reservation patterns and the public guard route could freeze the
// server. F1: a glob such as `*k*k*k*k*k*k*k*k*9` against a long name backtracked for seconds
// (picomatch), reachable without authentication through POST /v1/rooms/:id/reservations/check.
// N1: guard paths made of `**` segments made the overlap walk quadratic. N2: 50 deep patterns
// against 300 held ones. F9: the public route listed every reservation (holders, patterns) to
// whoever asked about a `**` path. Each attack runs while a concurrent GET /healthz measures the
// event loop (test/helpers/loop-probe.ts); the figures are printed, the bounds asserted are generous.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, ok, fails, type TestServer, type TestAgent } from '../helpers/server.js';
import { probeLoop, PROBE_ATTACK_MAX_MS, PROBE_LATENCY_MAX_MS } from '../helpers/loop-probe.js';

const report = (name: string, p: { attackMs: number; maxLatencyMs: number }) =>
  console.log(`[figure] ${name}: attack ${p.attackMs.toFixed(0)} ms, worst concurrent latency ${p.maxLatencyMs.toFixed(0)} ms`);

const within = (p: { attackMs: number; maxLatencyMs: number }) => {
  expect(p.maxLatencyMs).toBeLessThan(PROBE_LATENCY_MAX_MS);
  expect(p.attackMs).toBeLessThan(PROBE_ATTACK_MAX_MS);
};

describe('issue 26: no reservation pattern or guard path freezes the server', () => {
  let s: TestServer;
  let holder: TestAgent;
  let attacker: TestAgent;
  let ch: Client;
  let ca: Client;
  let room: string;

  /** The unauthenticated guard question, as the attacker sent it (text/plain, no credential). */
  const check = (paths: string[], roomId = room) =>
    fetch(`${s.baseUrl}/v1/rooms/${roomId}/reservations/check`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ paths }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
    holder = await s.agent('Holder');
    attacker = await s.agent('Attacker');
    room = await s.room('Globs');
    await s.join(room, holder.plate);
    await s.join(room, attacker.plate);
    ch = await s.connect(holder.credential);
    ca = await s.connect(attacker.credential);
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });

  it('F1: a backtracking glob held in the room, asked about a long name through the public guard route', async () => {
    await ok(ch, 'reserve_paths', { room, paths: ['*k*k*k*k*k*k*k*k*9', 'src/*a*a*a*a*a*a*a*a*a*a*a*a*b'] });
    const p = await probeLoop(s.baseUrl, () => check(['k'.repeat(255), 'src/' + 'a'.repeat(255), 'k'.repeat(200) + '9']));
    report('F1 guard route, backtracking glob vs 255-char names', p);
    within(p);
    expect(p.result.status).toBe(200);
    // The glob still means what it says: the name ending in 9 is reserved, the others are not.
    expect(p.result.body.conflicts.map((c: any) => c.path)).toEqual(['k'.repeat(200) + '9']);
  });

  it('F1: the same glob through list_reservations path= and reserve_paths', async () => {
    const p = await probeLoop(s.baseUrl, async () => {
      await ok(ca, 'list_reservations', { room, path: 'k'.repeat(255) });
      return fails(ca, 'reserve_paths', { room, paths: ['k'.repeat(254) + '9'] });
    });
    report('F1 list_reservations + reserve_paths, 255-char names', p);
    within(p);
    expect(p.result.code).toBe('CONFLICT');
  });

  it('F1: too many wildcards, segments or characters are INVALID_ARGUMENT, saying which bound', async () => {
    const stars = await fails(ca, 'reserve_paths', { room, paths: ['*k'.repeat(40) + '9'] });
    expect(stars.code).toBe('INVALID_ARGUMENT');
    expect(stars.message).toMatch(/wildcards/);
    const deep = await fails(ca, 'reserve_paths', { room, paths: [Array(65).fill('a').join('/')] });
    expect(deep.code).toBe('INVALID_ARGUMENT');
    const braces = await fails(ca, 'reserve_paths', { room, paths: ['{a,b}{c,d}{e,f}{g,h}{i,j}.ts'] });
    expect(braces.code).toBe('INVALID_ARGUMENT');
    const long = await check(['a/'.repeat(200) + 'x']);
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe('INVALID_ARGUMENT');
  });

  it('N1: 250 guard paths of ** segments (public route): `**` in a path is a name, not a wildcard', async () => {
    const paths = Array.from({ length: 250 }, (_x, i) => Array(127).fill('**').join('/') + '/' + i);
    const p = await probeLoop(s.baseUrl, () => check(paths));
    report('N1 guard route, 250 paths of 128 ** segments', p);
    within(p);
    expect(p.result.status).toBe(200);
    // Only the holder's `*k…9` could cover a root name; none of these paths is reserved.
    expect(p.result.body.conflicts).toEqual([]);
    expect(p.result.body.ok).toBe(true);
  });

  it.each([
    ['file names that differ', 'md', 'ts'],
    ['file names that meet', 'ts', 'ts'],
  ])('N2: 50 deep patterns against 300 deep held ones in one reserve_paths (%s)', async (_why, heldExt, wantExt) => {
    const deepRoom = await s.room(`Deep ${heldExt}`);
    await s.join(deepRoom, holder.plate);
    await s.join(deepRoom, attacker.plate);
    const deep = (tag: string, i: number, ext: string) => Array.from({ length: 15 }, () => `**/d/${tag}`).join('/') + `/*${i}.${ext}`;
    for (let k = 0; k < 6; k++) {
      await ok(ch, 'reserve_paths', { room: deepRoom, paths: Array.from({ length: 50 }, (_x, i) => deep('h', k * 50 + i, heldExt)), exclusive: false });
    }
    const p = await probeLoop(s.baseUrl, () =>
      ca.callTool({ name: 'reserve_paths', arguments: { room: deepRoom, paths: Array.from({ length: 50 }, (_x, i) => deep('w', i, wantExt)) } }),
    );
    report(`N2 reserve_paths, 50 deep patterns vs 300 held (${_why})`, p);
    within(p);
    // Granted, refused as a conflict, or refused as too complex to check: never a frozen server.
    if (p.result.isError) expect(['INVALID_ARGUMENT', 'CONFLICT']).toContain((p.result.structuredContent as any).error.code);
  });

  it('F9: without a credential the guard route says only which asked paths are reserved, never by whom', async () => {
    const r = await check(['**', 'src/**', 'kkkkkkkk9', 'free.md']);
    expect(r.status).toBe(200);
    expect(r.body.authenticated).toBe(false);
    expect(r.body.conflicts).toEqual([{ path: 'kkkkkkkk9' }]);
    const text = JSON.stringify(r.body);
    expect(text).not.toContain(holder.handle);
    expect(text).not.toContain(holder.plate);
    expect(text).not.toContain('*k*k');
    // With the holder's credential... the committer is the holder and nothing is in its way;
    // with another member's credential the answer names the holder.
    const authed = await fetch(`${s.baseUrl}/v1/rooms/${room}/reservations/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${attacker.credential}` },
      body: JSON.stringify({ paths: ['kkkkkkkk9'] }),
    }).then((x) => x.json() as Promise<any>);
    expect(authed.conflicts[0]).toMatchObject({ path: 'kkkkkkkk9', holder: holder.handle, pattern: '*k*k*k*k*k*k*k*k*9' });
  });
});
