// The desktop app end to end, in a real Electron: it runs where the Electron binary and a
// better-sqlite3 built for it exist, and otherwise says it was skipped and why.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { _electron, type ElectronApplication } from 'playwright-core';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findElectronBinary } from '../../src-main/electron/shell.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function whyNot(): string | undefined {
  const found = findElectronBinary(ROOT, process.env);
  if ('missing' in found) return found.missing;
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return 'no display (run under xvfb-run)';
  // The core's SQLite addon must be built for Electron's ABI, not Node's (see docs/desktop.md).
  const probe = spawnSync(found.path, ['-e', "require('better-sqlite3')(':memory:').close()"], {
    cwd: ROOT,
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (probe.status !== 0) return `better-sqlite3 does not load in Electron (run "npx @electron/rebuild --only better-sqlite3"): ${(probe.stderr || '').split('\n')[0]}`;
  return undefined;
}

const skipReason = whyNot();
if (skipReason) console.warn(`test/e2e/electron.test.ts skipped: ${skipReason}`);

describe.skipIf(skipReason !== undefined)('the desktop app in Electron', () => {
  let electronApp: ElectronApplication;
  let home: string;
  let baseUrl: string;

  beforeAll(async () => {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.electron.json'], { cwd: ROOT, stdio: 'inherit' });
    home = mkdtempSync(join(tmpdir(), 'agent-rooms-desktop-'));
    const bin = findElectronBinary(ROOT, process.env) as { path: string };
    electronApp = await _electron.launch({
      executablePath: bin.path,
      args: [join(ROOT, 'dist/src-main/electron/main.js'), ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
      env: { ...process.env, AGENT_ROOMS_HOME: home, AGENT_ROOMS_PORT: '0' } as Record<string, string>,
      timeout: 60_000,
    });
    const page = await electronApp.firstWindow();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/$/, { timeout: 30_000 });
    baseUrl = new URL(page.url()).origin;
  });

  afterAll(async () => {
    await electronApp?.close().catch(() => {});
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('opens the UI signed in as the primary owner, with the core in-process on the chosen port', async () => {
    const page = await electronApp.firstWindow();
    const me = await page.evaluate(async () => {
      // The UI's credential is a header token kept in the tab's sessionStorage (no cookie).
      const token = Object.values(sessionStorage).find((v) => v.startsWith('ars_'));
      const r = await fetch('/v1/me', { headers: { authorization: `Bearer ${token}` } });
      return { status: r.status, body: await r.json() };
    });
    expect(me.status).toBe(200);
    const serverJson = JSON.parse(readFileSync(join(home, 'server.json'), 'utf8'));
    expect(`http://127.0.0.1:${serverJson.port}`).toBe(baseUrl);
    expect(serverJson.pid).toBe(await electronApp.evaluate(() => process.pid));
  });

  it('follows the security checklist: isolated, sandboxed, no Node, CSP on the page', async () => {
    const page = await electronApp.firstWindow();
    expect(await page.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
    expect(await page.evaluate(() => typeof (globalThis as { process?: unknown }).process)).toBe('undefined');
    expect(await page.evaluate(() => (globalThis as { agentRoomsDesktop?: { desktop: boolean } }).agentRoomsDesktop?.desktop)).toBe(true);
    const res = await page.request.get(baseUrl + '/');
    expect(res.headers()['content-security-policy']).toContain("default-src 'self'");
  });

  it('keeps navigation on the core and opens no new windows', async () => {
    const page = await electronApp.firstWindow();
    await page.evaluate(() => {
      window.open('http://127.0.0.1:1/elsewhere');
      location.href = 'file:///etc/hostname';
    });
    await page.waitForTimeout(500);
    expect(new URL(page.url()).origin).toBe(baseUrl);
    expect(electronApp.windows().length).toBe(1);
  });

  it('stays in the tray when the window closes, and quitting closes the core cleanly', async () => {
    await electronApp.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]!.close());
    await new Promise((r) => setTimeout(r, 500));
    expect((await fetch(baseUrl + '/healthz')).status).toBe(200);
    expect(await electronApp.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().map((w) => w.isVisible()))).toEqual([false]);
    const exited = new Promise<void>((r) => electronApp.process().once('exit', () => r()));
    await electronApp.evaluate(({ app }) => app.quit());
    await exited;
    expect(existsSync(join(home, 'server.json'))).toBe(false);
    await expect(fetch(baseUrl + '/healthz')).rejects.toThrow();
  });
});
