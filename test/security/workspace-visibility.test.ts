import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ok, fails } from '../helpers/server.js';
import { openTestApp, type TestApp } from '../helpers/app.js';
import { addHuman } from './helpers.js';

/**
 * Issue 14, item 8 (docs/security.md): a non-admin human of another owner does not see the
 * room admin's local path (nor the other workspace details): the same rule as for agents.
 */
describe('security: workspace visibility (item 8)', () => {
  let s: TestApp;
  let bob: { owner_id: string; token: string };
  let room: string;
  const LOCAL = '/home/ada/secret-client/repo';
  beforeAll(async () => {
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 1 } });
    bob = await s.owner('Bob Curious');
    room = await s.room('Workspace room');
    await addHuman(s, room, bob.owner_id);
    const put = await s.api('PUT', `/v1/rooms/${room}/workspace`, {
      local_path: LOCAL,
      repo_url: 'https://github.com/ada/secret-client.git',
      repo_branch: 'main',
      git_token: 'ghp_WorkspaceToken0123456789abcdefQRS',
    });
    expect(put.status).toBe(200);
  });
  afterAll(async () => s.stop());

  it("a non-admin human of another owner does not see the admin's local path", async () => {
    const r = await s.api('GET', `/v1/rooms/${room}/workspace`, undefined, bob.token);
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.body)).not.toContain(LOCAL);
    expect(JSON.stringify(r.body)).not.toContain('secret-client');
    expect(r.body).toMatchObject({ configured: true, details_hidden: true, local_path: null, repo_url: null, git_token: null });
    // Nor through the room context of his agent (the rule agents already had).
    const a = await s.agent('Bob agent', { token: bob.token });
    await s.join(room, a.plate, bob.token);
    const c = await s.connect(a.credential);
    const ctx = await ok(c, 'get_room_context', { room });
    expect(JSON.stringify(ctx)).not.toContain(LOCAL);
    expect((await fails(c, 'read_workspace', { room })).code).toBe('FORBIDDEN');
  });

  it('the admin still sees it; a member promoted to admin does too', async () => {
    const mine = await s.api('GET', `/v1/rooms/${room}/workspace`);
    expect(mine.body).toMatchObject({ configured: true, details_hidden: false, local_path: LOCAL, git_token: '••••fQRS' });
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: bob.owner_id, role: 'admin' })).status).toBe(201);
    expect((await s.api('GET', `/v1/rooms/${room}/workspace`, undefined, bob.token)).body.local_path).toBe(LOCAL);
  });
});
