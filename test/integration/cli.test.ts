import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, statSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from '../helpers/child.js';

describe('agent-rooms serve', () => {
  const homes: string[] = [];
  afterAll(() => homes.forEach((h) => rmSync(h, { recursive: true, force: true })));

  it('first start creates the owner token (0600), server.json and prints the ready line; SIGTERM exits 0', async () => {
    const home = mkdtempSync(join(tmpdir(), 'ar-cli-'));
    homes.push(home);
    const s = await spawnServer(home);
    expect(s.stdout()).toMatch(/MCP URL: http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(s.stdout()).toMatch(/UI login \(one-time, 5 minutes\): http:\/\/127\.0\.0\.1:\d+\/login\?token=/);
    expect(statSync(join(home, 'owner-token')).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'keys', 'passport-ed25519.pem')).mode & 0o777).toBe(0o600);
    const sj = JSON.parse(readFileSync(join(home, 'server.json'), 'utf8'));
    expect(sj).toMatchObject({ port: s.port, mcp_url: `${s.baseUrl}/mcp`, ui_url: `${s.baseUrl}/` });
    const me = await fetch(`${s.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${s.ownerToken}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { is_primary: boolean }).is_primary).toBe(true);
    expect(s.stdout()).not.toContain(s.ownerToken);
    expect(await s.stop()).toBe(0);
    expect(existsSync(join(home, 'server.json'))).toBe(false);
  });

  it('refuses to bind anything but 127.0.0.1', async () => {
    const home = mkdtempSync(join(tmpdir(), 'ar-cli-'));
    homes.push(home);
    await expect(spawnServer(home, ['--host', '0.0.0.0'])).rejects.toThrow(/binds 127\.0\.0\.1 only/);
  });
});
