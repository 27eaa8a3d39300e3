import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ERROR_ID_RE } from '../helpers/core.js';
import { sha256Hex } from '../../src-main/core/util/ids.js';
import { sessionPublicId } from '../../src-main/core/owners/login.js';
import { clientLabel } from '../../src-main/core/owners/ui-auth.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A human API error: status and `{error: {code, message, error_id}}`. */
function expectApiError(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.error.code).toBe(code);
  expect(r.body.error.error_id).toMatch(ERROR_ID_RE);
}

/**
 * The window's sessions through the human API (docs/ui.md "Sign-in", docs/security.md item 5):
 * GET /v1/me/sessions, DELETE /v1/me/sessions/:id, POST /v1/me/sessions/end-others, the grant's
 * session id, and `npx agent-rooms open` from the clone. The attacks are in
 * test/security/05-ui-sessions.test.ts.
 */
describe('window sessions: the API', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.stop();
  });

  async function signIn(url: string, ua?: string) {
    const token = new URL(url).searchParams.get('token')!;
    const r = await fetch(`${s.baseUrl}/v1/ui/login`, { method: 'POST', headers: { origin: s.baseUrl, 'content-type': 'application/json', ...(ua ? { 'user-agent': ua } : {}) }, body: JSON.stringify({ token }) });
    expect(r.status).toBe(201);
    return (await r.json()) as { session_token: string; session_id: string; expires_at: string; idle_expires_at: string };
  }

  it('lists the caller’s sessions, newest use first, with the browser, times and an id derived from the token, never the token', async () => {
    const chrome = await signIn(s.running.loginUrl(), 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36');
    const firefox = await signIn(s.running.loginUrl(), 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0');
    expect(chrome.session_id).toBe(sessionPublicId(sha256Hex(chrome.session_token)));
    // 30 days from now unless used again; at most 90 after sign-in.
    const idle = Date.parse(chrome.idle_expires_at) - Date.now();
    expect(idle).toBeGreaterThan(29 * 86_400_000);
    expect(idle).toBeLessThanOrEqual(30 * 86_400_000);
    expect(Date.parse(chrome.expires_at) - Date.parse(chrome.idle_expires_at)).toBe(60 * 86_400_000);

    // Chrome is used after Firefox signed in: it comes first. An owner token lists the same sessions.
    s.running.core.db.prepare('UPDATE ui_sessions SET last_used_at = last_used_at + 120000, expires_at = expires_at - 120000 WHERE public_id = ?').run(chrome.session_id);
    const r = await s.api('GET', '/v1/me/sessions');
    expect(r.status).toBe(200);
    const ids = r.body.sessions.map((x: { session_id: string }) => x.session_id);
    expect(ids.slice(0, 2)).toEqual([chrome.session_id, firefox.session_id]);
    expect(r.body.sessions[0]).toEqual({ session_id: chrome.session_id, client: 'Chrome on Linux', created_at: expect.any(String), last_used_at: expect.any(String), expires_at: expect.any(String) });
    expect(r.body.sessions[1].client).toBe('Firefox on Windows');
    expect(JSON.stringify(r.body)).not.toContain('ars_');
    expect(JSON.stringify(r.body)).not.toContain(sha256Hex(chrome.session_token));
  });

  it('ends one session or all but one; refuses a malformed keep with INVALID_ARGUMENT and an unknown id with NOT_FOUND', async () => {
    const a = await signIn(s.running.loginUrl());
    const b = await signIn(s.running.loginUrl());
    const c = await signIn(s.running.loginUrl());
    const me = (t: string) => fetch(`${s.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${t}` } }).then((r) => r.status);

    const del = await s.api('DELETE', `/v1/me/sessions/${b.session_id}`, undefined, a.session_token);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ ended: 1 });
    expect(await me(b.session_token)).toBe(401);
    expectApiError(await s.api('DELETE', `/v1/me/sessions/${b.session_id}`, undefined, a.session_token), 404, 'NOT_FOUND');
    expectApiError(await s.api('DELETE', `/v1/me/sessions/uis_nonsense`), 404, 'NOT_FOUND');

    const bad = await s.api('POST', '/v1/me/sessions/end-others', { keep: 'ars_not-an-id' }, a.session_token);
    expectApiError(bad, 400, 'INVALID_ARGUMENT');
    expect(JSON.stringify(bad.body)).not.toContain('ars_not-an-id');
    expectApiError(await s.api('POST', '/v1/me/sessions/end-others', { keep: a.session_id, extra: 1 }, a.session_token), 400, 'INVALID_ARGUMENT');
    expect(await me(c.session_token)).toBe(200);

    const others = await s.api('POST', '/v1/me/sessions/end-others', { keep: a.session_id }, a.session_token);
    expect(others.status).toBe(200);
    expect(others.body.ended).toBeGreaterThanOrEqual(1);
    expect(await me(c.session_token)).toBe(401);
    expect(await me(a.session_token)).toBe(200);
    expect((await s.api('GET', '/v1/me/sessions')).body.sessions.map((x: { session_id: string }) => x.session_id)).toEqual([a.session_id]);
    // Without keep (a script with the owner token): every window session ends.
    expect((await s.api('POST', '/v1/me/sessions/end-others', {})).body).toEqual({ ended: 1 });
    expect(await me(a.session_token)).toBe(401);
  });

  it('the browser label is a few known words, whatever the User-Agent says', () => {
    expect(clientLabel(undefined)).toBe('');
    expect(clientLabel('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15')).toBe('Safari on macOS');
    expect(clientLabel('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36 Edg/140.0')).toBe('Edge on Windows');
    expect(clientLabel('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) agent-rooms/0.1.0 Chrome/140.0 Electron/38.0 Safari/537.36')).toBe('Agent Rooms desktop on Linux');
    expect(clientLabel('<script>alert(1)</script> ' + 'x'.repeat(10_000))).toBe('');
  });

  it('`npx agent-rooms open` works from the clone (its root and a folder inside it) and prints a link that signs the primary owner in', async () => {
    const run = (cwd: string) =>
      promisify(execFile)('npm', ['exec', '--offline', '--', 'agent-rooms', 'open', '--home', s.home], { cwd, env: { ...process.env, npm_config_update_notifier: 'false' } });
    for (const cwd of [ROOT, join(ROOT, 'docs')]) {
      const { stdout } = await run(cwd);
      const url = stdout.trim();
      expect(url).toMatch(new RegExp(`^${s.baseUrl.replace(/[.]/g, '\\.')}/login\\?token=arl_`));
      const grant = await signIn(url);
      const me = await fetch(`${s.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${grant.session_token}` } }).then((r) => r.json() as Promise<{ is_primary: boolean }>);
      expect(me.is_primary).toBe(true);
    }
    // From source through tsx when the clone's build is older than its sources: slow on a busy machine.
  }, 180_000);

  it('`npx agent-rooms open` works from an install (`npm install -g`), in a folder that is no project', async () => {
    const prefix = mkdtempSync(join(tmpdir(), 'agent-rooms-prefix-'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'agent-rooms-cwd-'));
    try {
      const env = { ...process.env, npm_config_update_notifier: 'false', NPM_CONFIG_PREFIX: prefix };
      await promisify(execFile)('npm', ['install', '-g', '--offline', '--no-audit', '--no-fund', ROOT], { env });
      const { stdout } = await promisify(execFile)('npm', ['exec', '--offline', '--', 'agent-rooms', 'open', '--home', s.home], { cwd: elsewhere, env });
      const grant = await signIn(stdout.trim());
      expect(grant.session_token).toMatch(/^ars_/);
    } finally {
      rmSync(prefix, { recursive: true, force: true });
      rmSync(elsewhere, { recursive: true, force: true });
    }
  }, 180_000);
});
