// Issue 26 F1, N1, N2, F9: reservation patterns and the public guard route could freeze the
// server. F1: a glob such as `*k*k*k*k*k*k*k*k*9` against a long name backtracked for seconds
// (picomatch), reachable without authentication through POST /v1/rooms/:id/reservations/check.
// N1: guard paths made of `**` segments made the overlap walk quadratic. N2: 50 deep patterns
// against 300 held ones. F9: the public route listed every reservation (holders, patterns) to
// whoever asked about a `**` path. Each attack runs in the in-process app (test/helpers/app.ts)
// while test/helpers/loop-probe.ts measures how long the event loop was held and how long a
// concurrent GET /healthz sent as the attack started waited for its answer (both printed). What is
// asserted is the work: the matcher counts its steps in a Budget (reservations/rules.ts) and no
// request spends more than Budget.PER_REQUEST, or it is refused as `too_complex`; the only time
// bound is LOOP_HELD_MAX_MS, far above what a loaded machine needs, far below the old seconds.
import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { ok, fails, type TestAgent } from '../helpers/server.js';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';
import { probeLoopAndRequest, reportWithRequest, startHealthServer, LOOP_HELD_MAX_MS } from '../helpers/loop-probe.js';
import { Budget } from '../../src-main/core/reservations/rules.js';
import { reservePaths, type Holder } from '../../src-main/core/reservations/service.js';
import { getAgentByPlate } from '../../src-main/core/agents/store.js';
import { AppError } from '../../src-main/core/errors/app-error.js';

/** Matching steps spent (Budget.spend, those the budget allowed) since the last reset: the work the attack made the matcher do. */
let steps = 0;
const spend = Budget.prototype.spend;
/** A plain wrapper, not vi.spyOn: a spy records every call, which would slow the matcher it measures. */
function counted(this: Budget, n: number): void {
  spend.call(this, n); // throws `too_complex` past the request's budget: those steps are never walked
  steps += n;
}

/** Each request's matching stayed within its budget (the budget throws `too_complex` beyond it), the loop was not held long, and the concurrent request was answered. */
const within = (p: { maxHeldMs: number; request: { status: number } }, requests: number) => {
  expect(steps).toBeLessThanOrEqual(Budget.PER_REQUEST * requests);
  expect(p.maxHeldMs).toBeLessThan(LOOP_HELD_MAX_MS);
  expect(p.request.status).toBe(200);
};

describe('issue 26: no reservation pattern or guard path freezes the server', () => {
  let s: TestApp;
  let holder: TestAgent;
  let attacker: TestAgent;
  let ch: AppClient;
  let ca: AppClient;
  let room: string;
  let health: Awaited<ReturnType<typeof startHealthServer>>;
  /** Runs the attack while a concurrent GET /healthz is sent (test/helpers/loop-probe.ts). */
  const probe = <T>(attack: () => Promise<T>) => probeLoopAndRequest(attack, health.url);

  /** The unauthenticated guard question, as the attacker sent it (no credential; the route's own dispatch). */
  const check = (paths: string[], roomId = room) => s.api('POST', `/v1/rooms/${roomId}/reservations/check`, { paths }, '');

  beforeEach(() => {
    steps = 0;
  });

  beforeAll(async () => {
    Budget.prototype.spend = counted;
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 0 } });
    health = await startHealthServer();
    holder = await s.agent('Holder');
    attacker = await s.agent('Attacker');
    room = await s.room('Globs');
    await s.join(room, holder.plate);
    await s.join(room, attacker.plate);
    ch = await s.connect(holder.credential);
    ca = await s.connect(attacker.credential);
  }, 60_000);
  afterAll(async () => {
    Budget.prototype.spend = spend;
    await health?.close();
    await s?.stop();
  });

  it('F1: a backtracking glob held in the room, asked about a long name through the public guard route', async () => {
    await ok(ch, 'reserve_paths', { room, paths: ['*k*k*k*k*k*k*k*k*9', 'src/*a*a*a*a*a*a*a*a*a*a*a*a*b'] });
    steps = 0;
    const p = await probe(() => check(['k'.repeat(255), 'src/' + 'a'.repeat(255), 'k'.repeat(200) + '9']));
    reportWithRequest(`F1 guard route, backtracking glob vs 255-char names (${steps} matching steps)`, p);
    expect(steps).toBeGreaterThan(0);
    // Linear matching: at most (pattern length × name length) steps per pair, 2 held patterns × 3
    // names; backtracking (the old picomatch) grows as name length ^ wildcards.
    expect(steps).toBeLessThanOrEqual(2 * 3 * 32 * 260);
    within(p, 1);
    expect(p.result.status).toBe(200);
    // The glob still means what it says: the name ending in 9 is reserved, the others are not.
    expect(p.result.body.conflicts.map((c: any) => c.path)).toEqual(['k'.repeat(200) + '9']);
  });

  it('F1: the same glob through list_reservations path= and reserve_paths', async () => {
    const p = await probe(async () => {
      await ok(ca, 'list_reservations', { room, path: 'k'.repeat(255) });
      return fails(ca, 'reserve_paths', { room, paths: ['k'.repeat(254) + '9'] });
    });
    reportWithRequest(`F1 list_reservations + reserve_paths, 255-char names (${steps} matching steps)`, p);
    expect(steps).toBeGreaterThan(0);
    within(p, 2);
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
    const p = await probe(() => check(paths));
    reportWithRequest(`N1 guard route, 250 paths of 128 ** segments (${steps} matching steps)`, p);
    within(p, 1);
    expect(p.result.status).toBe(200);
    // Only the holder's `*k…9` could cover a root name; none of these paths is reserved.
    expect(p.result.body.conflicts).toEqual([]);
    expect(p.result.body.ok).toBe(true);
  });

  /** A room where the holder holds 300 patterns (shared unless told), reserved 50 a call. */
  const heldRoom = async (name: string, pattern: (i: number) => string, exclusive = false) => {
    const r = await s.room(name);
    await s.join(r, holder.plate);
    await s.join(r, attacker.plate);
    for (let k = 0; k < 6; k++) await ok(ch, 'reserve_paths', { room: r, paths: Array.from({ length: 50 }, (_x, i) => pattern(k * 50 + i)), exclusive });
    return r;
  };
  const deep = (tag: string, i: number, ext: string) => Array.from({ length: 15 }, () => `**/d/${tag}`).join('/') + `/*${i}.${ext}`;

  it.each([
    ['file names that differ', 'md', 'ts'],
    ['file names that meet', 'ts', 'ts'],
  ])('N2: 50 deep patterns against 300 deep held ones in one reserve_paths (%s)', async (_why, heldExt, wantExt) => {
    const deepRoom = await heldRoom(`Deep ${heldExt}`, (i) => deep('h', i, heldExt));
    steps = 0;
    const p = await probe(() => ca.callTool({ name: 'reserve_paths', arguments: { room: deepRoom, paths: Array.from({ length: 50 }, (_x, i) => deep('w', i, wantExt)) } }));
    reportWithRequest(`N2 reserve_paths, 50 deep patterns vs 300 held (${_why}; ${steps} matching steps)`, p);
    expect(steps).toBeGreaterThan(0);
    within(p, 1);
    // The 15,000 pairs are matched a slice per turn of the event loop: the other client was answered meanwhile.
    expect(p.request.answeredBeforeAttackEnded).toBe(true);
    // Granted: every pair is told apart by its fixed trailing segments (`d/w/*.ts` never meets
    // `d/h/*.md` nor `d/h/*.ts`) in a few steps, before any walk over the 46 × 46 positions.
    expect(p.result.isError).toBeFalsy();
    expect(steps).toBeLessThanOrEqual(50 * 300 * 10);
  });

  it('N2: deep patterns that only the walk can tell apart are refused as too_complex within the budget, with an error_id', async () => {
    // A `**` right before the last name leaves only that name fixed, and `*i.ts` meets `*j.ts`
    // whenever one number ends the other: the walk must run, and 15,000 such pairs need more than one request's budget.
    const deep2 = (tag: string, i: number) => Array.from({ length: 14 }, () => `**/d/${tag}`).join('/') + `/**/*${i}.ts`;
    const deepRoom = await heldRoom('Deep walk', (i) => deep2('h', i));
    steps = 0;
    const p = await probe(() => ca.callTool({ name: 'reserve_paths', arguments: { room: deepRoom, paths: Array.from({ length: 50 }, (_x, i) => deep2('w', i)) } }));
    reportWithRequest(`N2 reserve_paths, 50 deep patterns vs 300 held that need the walk (${steps} matching steps)`, p);
    within(p, 1);
    expect(p.request.answeredBeforeAttackEnded).toBe(true);
    // The budget was used up (the step that crossed it is refused, not counted), then the request refused as a structured error.
    expect(steps).toBeGreaterThan(Budget.PER_REQUEST * 0.99);
    expect(p.result.isError).toBe(true);
    const error = (p.result.structuredContent as any).error;
    expect([error.code, error.reason]).toEqual(['INVALID_ARGUMENT', 'too_complex']);
    expect(error.error_id).toMatch(/^err_/);
    // Nothing was half-written: the attacker holds nothing in that room.
    const list = await ok<any>(ca, 'list_reservations', { room: deepRoom });
    expect(list.reservations.filter((r: any) => r.plate === attacker.plate)).toEqual([]);
  });

  it('N2: 2,000 guard paths against 300 deep exclusive reservations, without a credential: matched a slice per turn, then refused as too_complex', async () => {
    const r = await heldRoom('Deep guard', (i) => deep('h', i, 'ts'), true);
    // Every path meets every held pattern's fixed end (`*<i>.ts` against a .ts name): 600,000 pairs, far over one request's budget.
    const paths = Array.from({ length: 2000 }, (_x, i) => `src/p${i}/f${i}.ts`);
    steps = 0;
    const p = await probe(() => check(paths, r));
    reportWithRequest(`N2 guard route, 2,000 paths vs 300 deep held (${steps} matching steps)`, p);
    within(p, 1);
    expect(steps).toBeGreaterThan(Budget.PER_REQUEST * 0.99);
    expect(p.request.answeredBeforeAttackEnded).toBe(true);
    expect(p.result.status).toBe(400);
    expect([p.result.body.error.code, p.result.body.error.reason]).toEqual(['INVALID_ARGUMENT', 'too_complex']);
    expect(p.result.body.error.error_id).toMatch(/^err_/);
  });

  describe('N2: the matching runs across turns of the event loop, and the reservation stays all or nothing', () => {
    const wanted = Array.from({ length: 50 }, (_x, i) => deep('w', i, 'ts'));
    const as = (a: TestAgent): Holder => ({ plate: a.plate, ownerId: getAgentByPlate(s.core.db, a.plate)!.owner_id });
    /** The attacker's 50 deep patterns against the room's 300 held ones, started (its first slice runs now) but not awaited. */
    const startLong = (roomId: string) => {
      const call = { settled: false, outcome: undefined as unknown };
      const done = reservePaths(s.core, as(attacker), { roomId, paths: wanted }).then(
        (r) => r,
        (e: unknown) => e,
      );
      void done.then((x) => Object.assign(call, { settled: true, outcome: x }));
      return { call, done };
    };
    const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
    const mine = async (c: AppClient, roomId: string, plate: string) =>
      (await ok<any>(c, 'list_reservations', { room: roomId })).reservations.filter((r: any) => r.plate === plate).map((r: any) => r.pattern);

    it('a pattern reserved by another agent while the long call is being matched is not missed: the long call is refused naming it and holds nothing', async () => {
      const r = await heldRoom('Deep race', (i) => deep('h', i, 'ts'));
      const racer = await s.agent('Racer');
      await s.join(r, racer.plate);
      const long = startLong(r);
      await nextTurn();
      expect(long.call.settled).toBe(false);
      // The racer's one pattern (one of the 50) is matched and granted while the long call is still between slices.
      const fast = await reservePaths(s.core, as(racer), { roomId: r, paths: [wanted[7]!] });
      expect(long.call.settled).toBe(false);
      expect(fast.granted).toBe(true);
      const err = (await long.done) as AppError;
      expect(err).toBeInstanceOf(AppError);
      expect([err.code, err.reason]).toEqual(['CONFLICT', 'paths_reserved']);
      // `*7.ts` meets the attacker's `*7.ts`, `*17.ts` … `*47.ts` (a file named 17.ts matches both): five conflicts, all with the racer's one reservation.
      const meetsSeven = wanted.filter((_w, j) => String(j).endsWith('7'));
      expect((err.details as any).conflicts.map((c: any) => [c.pattern, c.plate, c.reservation_id])).toEqual(
        meetsSeven.map((w) => [w, racer.plate, fast.reservations[0]!.reservation_id]),
      );
      expect(await mine(ca, r, attacker.plate)).toEqual([]);
      expect(await mine(ca, r, racer.plate)).toEqual([wanted[7]]);
    });

    it('a conflicting reservation released while the long call is being matched no longer stands in its way: all 50 are granted', async () => {
      const r = await heldRoom('Deep release', (i) => deep('h', i, 'ts'));
      const blocker = await ok<any>(ch, 'reserve_paths', { room: r, paths: [wanted[3]!], exclusive: true });
      const long = startLong(r);
      await nextTurn();
      await ok(ch, 'release_paths', { room: r, reservation_ids: [blocker.reservations[0].reservation_id] });
      expect(long.call.settled).toBe(false);
      const granted = (await long.done) as Awaited<ReturnType<typeof reservePaths>>;
      expect(granted.granted).toBe(true);
      expect((await mine(ca, r, attacker.plate)).sort()).toEqual([...wanted].sort());
    });

    it('two long calls for the same patterns at once, their slices interleaved: exactly one is granted, the other is refused naming it', async () => {
      const r = await heldRoom('Deep twins', (i) => deep('h', i, 'ts'));
      const twins = [attacker, await s.agent('Twin')];
      await s.join(r, twins[1]!.plate);
      // 25 patterns each (7,500 pairs, dozens of slices): the loser's transaction then matches the winner's 25 new rows within its budget.
      const half = wanted.slice(0, 25);
      const outcomes = await Promise.all(
        twins.map((t) =>
          reservePaths(s.core, as(t), { roomId: r, paths: half }).then(
            (x) => x,
            (e: unknown) => e,
          ),
        ),
      );
      const won = outcomes.findIndex((o) => !(o instanceof AppError));
      const lost = outcomes[1 - won] as AppError;
      expect(won).toBeGreaterThanOrEqual(0);
      expect([lost.code, lost.reason]).toEqual(['CONFLICT', 'paths_reserved']);
      const conflicts = (lost.details as any).conflicts as Array<{ pattern: string; plate: string }>;
      expect(new Set(conflicts.map((c) => c.plate))).toEqual(new Set([twins[won]!.plate]));
      expect(new Set(conflicts.map((c) => c.pattern)).size).toBe(25);
      expect((await mine(ca, r, twins[won]!.plate)).sort()).toEqual([...half].sort());
      expect(await mine(ca, r, twins[1 - won]!.plate)).toEqual([]);
    });
  });

  // The budget is for attacks only: ordinary globs against 300 held ones are answered, granted or refused as a conflict naming each holder.
  const ordinary = (i: number) => [`src/mod${i}/**`, `docs/guide${i}/**`, `src/**/*.gen${i}.ts`, `test/unit/t${i}.test.ts`, `packages/p${i}/src/**/*.ts`][i % 5]!;

  it('ordinary globs against 300 held ordinary ones: 50 that meet none are granted', async () => {
    const r = await heldRoom('Ordinary free', ordinary, true);
    steps = 0;
    const p = await probe(() => ok<any>(ca, 'reserve_paths', { room: r, paths: Array.from({ length: 50 }, (_x, i) => (i % 2 ? `src/feature${i}/**/*.md` : `docs/new${i}.md`)) }));
    reportWithRequest(`ordinary reserve_paths, 50 free globs vs 300 held (${steps} matching steps)`, p);
    within(p, 1);
    expect(p.result.granted).toBe(true);
    expect(p.result.reservations).toHaveLength(50);
    expect(steps).toBeLessThan(Budget.PER_REQUEST / 2);
  });

  it('ordinary globs against 300 held ordinary ones: src/**/*.ts and docs/** conflict with exactly the held ones they meet', async () => {
    const r = await heldRoom('Ordinary taken', ordinary, true);
    steps = 0;
    const p = await probe(() => fails(ca, 'reserve_paths', { room: r, paths: ['src/**/*.ts', 'docs/**', 'lib/**'] }));
    reportWithRequest(`ordinary reserve_paths, src/**/*.ts docs/** lib/** vs 300 held (${steps} matching steps)`, p);
    within(p, 1);
    expect(p.result.code).toBe('CONFLICT');
    const found = (p.result.details as any).conflicts as Array<{ pattern: string; held_pattern: string }>;
    // src/**/*.ts meets src/mod<i>/** and src/**/*.gen<i>.ts (60 each); docs/** meets docs/guide<i>/** (60); lib/** nothing.
    const expected = Array.from({ length: 300 }, (_x, i) => ordinary(i)).flatMap((h) =>
      h.startsWith('src/') ? [['src/**/*.ts', h]] : h.startsWith('docs/') ? [['docs/**', h]] : [],
    );
    expect(found.map((c) => [c.pattern, c.held_pattern]).sort()).toEqual(expected.sort());
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
    const authed = (await s.api('POST', `/v1/rooms/${room}/reservations/check`, { paths: ['kkkkkkkk9'] }, attacker.credential)).body;
    expect(authed.conflicts[0]).toMatchObject({ path: 'kkkkkkkk9', holder: holder.handle, pattern: '*k*k*k*k*k*k*k*k*9' });
  });
});
