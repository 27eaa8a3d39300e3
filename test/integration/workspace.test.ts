import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ok, fails } from '../helpers/server.js';
import { openTestApp, type TestApp } from '../helpers/app.js';

// A token shaped like a real one; its whole text must never leave read_workspace.
const TOKEN = 'ghp_Zx9Qw3rT7yU1iO5pA8sD2fG6hJ4kL0mNbVcX';
const TOKEN_2 = 'glpat-Q1w2E3r4T5y6U7i8O9p0';

/** Every byte of the home's SQLite files (database, WAL, shm). */
function sqliteBytes(home: string): Buffer {
  return Buffer.concat(readdirSync(home).filter((f) => f.startsWith('rooms.db')).map((f) => readFileSync(join(home, f))));
}

describe('workspace', () => {
  let s: TestApp;
  const logs: string[] = [];
  const bodies: string[] = [];
  let room: string;
  let mate: { owner_id: string; token: string };

  const api = async (method: string, path: string, body?: unknown, token?: string) => {
    const r = await s.api(method, path, body, token);
    bodies.push(JSON.stringify(r.body));
    return r;
  };

  beforeAll(async () => {
    s = await openTestApp({ log: (l) => logs.push(l) });
    room = await s.room('Repo room');
    mate = await s.owner('Mate');
    expect((await api('POST', `/v1/rooms/${room}/members`, { owner_id: mate.owner_id, role: 'member' })).status).toBe(201);
  });
  afterAll(async () => s.stop());

  it('admins set it; GET shows the token masked; null clears it and omitting keeps it', async () => {
    expect((await api('GET', `/v1/rooms/${room}/workspace`)).body).toMatchObject({ local_path: null, repo_url: null, git_token: null, git_token_set: false });
    const put = await api('PUT', `/v1/rooms/${room}/workspace`, {
      local_path: '/home/ada/src/app',
      repo_url: 'https://github.com/ada/app.git',
      repo_branch: 'main',
      git_token: TOKEN,
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ local_path: '/home/ada/src/app', repo_url: 'https://github.com/ada/app.git', repo_branch: 'main', git_token: '••••bVcX', git_token_set: true });
    expect((await api('GET', `/v1/rooms/${room}/workspace`)).body.git_token).toBe('••••bVcX');
    // A non-admin member sees that it is configured, not its details (issue 14, docs/security.md item 8).
    const get = await api('GET', `/v1/rooms/${room}/workspace`, undefined, mate.token);
    expect(get.status).toBe(200);
    expect(get.body).toMatchObject({ configured: true, details_hidden: true, local_path: null, repo_url: null, git_token: null, git_token_set: true });
    // Omitting git_token keeps it; the other fields change.
    const keep = await api('PUT', `/v1/rooms/${room}/workspace`, { repo_branch: 'develop' });
    expect(keep.body).toMatchObject({ repo_branch: 'develop', local_path: '/home/ada/src/app', git_token: '••••bVcX' });
    // Members may not change it.
    const denied = await api('PUT', `/v1/rooms/${room}/workspace`, { git_token: null }, mate.token);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    expect((await api('GET', `/v1/rooms/${room}/workspace`)).body.git_token_set).toBe(true);
    // Credentials in repo_url are refused (they would be shown unmasked), without echoing them.
    const cred = await api('PUT', `/v1/rooms/${room}/workspace`, { repo_url: `https://x:${TOKEN_2}@github.com/ada/app.git` });
    expect(cred.status).toBe(400);
    expect(JSON.stringify(cred.body)).not.toContain(TOKEN_2);
    const bad = await api('PUT', `/v1/rooms/${room}/workspace`, { git_token: `${TOKEN_2} with spaces` });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).not.toContain(TOKEN_2);
    const outsider = await s.owner('Outsider');
    expect((await api('GET', `/v1/rooms/${room}/workspace`, undefined, outsider.token)).status).toBe(404);
  });

  it('read_workspace: the token in clear only to an agent whose owner is a room admin', async () => {
    const adminAgent = await s.agent('Builder');
    const mateAgent = await s.agent('Helper', { token: mate.token });
    await s.join(room, adminAgent.plate);
    await s.join(room, mateAgent.plate, mate.token);
    const ca = await s.connect(adminAgent.credential);
    const cm = await s.connect(mateAgent.credential);
    const w = await ok(ca, 'read_workspace', { room });
    expect(w).toMatchObject({ room, local_path: '/home/ada/src/app', repo_url: 'https://github.com/ada/app.git', repo_branch: 'develop', git_token: TOKEN });
    const e = await fails(cm, 'read_workspace', { room });
    expect(e).toMatchObject({ code: 'FORBIDDEN', http_status: 403 });
    expect(JSON.stringify(e)).not.toContain(TOKEN);
    const stranger = await s.agent('Stranger');
    expect((await fails(await s.connect(stranger.credential), 'read_workspace', { room })).code).toBe('NOT_MEMBER');
    // Promoting the mate to admin opens it to the mate's agent.
    await api('POST', `/v1/rooms/${room}/members`, { owner_id: mate.owner_id, role: 'admin' });
    expect((await ok(cm, 'read_workspace', { room })).git_token).toBe(TOKEN);
    // A replaced token reads back new; a cleared one is null.
    await api('PUT', `/v1/rooms/${room}/workspace`, { git_token: TOKEN_2 });
    expect((await ok(ca, 'read_workspace', { room })).git_token).toBe(TOKEN_2);
    expect((await api('GET', `/v1/rooms/${room}/workspace`)).body.git_token).toBe('••••O9p0');
    const cleared = await api('PUT', `/v1/rooms/${room}/workspace`, { git_token: null });
    expect(cleared.body).toMatchObject({ git_token: null, git_token_set: false, repo_branch: 'develop' });
    expect((await ok(ca, 'read_workspace', { room })).git_token).toBeNull();
    await api('PUT', `/v1/rooms/${room}/workspace`, { git_token: TOKEN });
  });

  it('the token is never in a /v1 response, a log line or the SQLite file bytes; the key file is 0600', async () => {
    const everyV1 = [
      ...bodies,
      JSON.stringify((await api('GET', `/v1/rooms/${room}`)).body),
      JSON.stringify((await api('GET', `/v1/rooms/${room}/workspace`)).body),
    ].join('\n');
    expect(everyV1).toContain('••••'); // the masked token was there to see
    for (const t of [TOKEN, TOKEN_2]) {
      expect(everyV1).not.toContain(t);
      expect(logs.join('\n')).not.toContain(t);
      const db = sqliteBytes(s.home);
      expect(db.includes(Buffer.from(t))).toBe(false);
      expect(db.includes(Buffer.from(t, 'utf16le'))).toBe(false);
    }
    const keys = readdirSync(join(s.home, 'keys'));
    const aes = keys.find((k) => k.includes('aes'))!;
    expect(aes).toBeDefined();
    expect(statSync(join(s.home, 'keys', aes)).mode & 0o777).toBe(0o600);
  });
});
