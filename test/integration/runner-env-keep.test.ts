import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRunner } from '../../src-main/core/wakes/runners.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The window's runner editor never reads an env value, so it changes one variable with
 * `keep_env` (docs/wakes.md "Delivery: runners"): the saved names it lists stay as saved, the
 * others go, the new values are set; GET answers names only.
 */
describe('runner env: keep_env', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 1 } });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('keeps the named saved values, removes the rest, sets the new ones, and refuses bad names', async () => {
    const a = await s.agent('Env keeper');
    const put = (body: Record<string, unknown>) => s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: process.execPath, ...body });
    expect((await put({ env: { A_KEY: 'alpha-secret', B_URL: 'http://b', C_OLD: 'gone' } })).status).toBe(200);
    const saved = () => getRunner(s.running.core.db, a.plate, 'codex')!.env;

    const r = await put({ env: { D_NEW: 'delta-secret' }, keep_env: ['A_KEY', 'B_URL', 'NOT_SAVED'] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.env).toEqual({ A_KEY: '***', B_URL: '***', D_NEW: '***' });
    expect(JSON.stringify(r.body)).not.toMatch(/alpha-secret|delta-secret/);
    expect(saved()).toEqual({ A_KEY: 'alpha-secret', B_URL: 'http://b', D_NEW: 'delta-secret' });

    // A new value for a kept name replaces it; keep_env alone removes what it does not name.
    expect((await put({ env: { A_KEY: 'alpha-2' }, keep_env: ['A_KEY', 'D_NEW'] })).status).toBe(200);
    expect(saved()).toEqual({ A_KEY: 'alpha-2', D_NEW: 'delta-secret' });
    expect((await put({ keep_env: ['D_NEW'] })).status).toBe(200);
    expect(saved()).toEqual({ D_NEW: 'delta-secret' });
    // Without env and keep_env, a save keeps everything (as before).
    expect((await put({ timeout_ms: 60_000 })).status).toBe(200);
    expect(saved()).toEqual({ D_NEW: 'delta-secret' });

    const bad = await put({ keep_env: ['not a name'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.error_id).toMatch(/^err_/);
    expect(saved()).toEqual({ D_NEW: 'delta-secret' });
  });
});
