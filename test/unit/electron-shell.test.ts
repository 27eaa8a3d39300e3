import { describe, it, expect, afterEach } from 'vitest';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCore, CSP, DEFAULT_PORT, type RunningCore } from '../../src-main/core/start.js';
import type { CoreEvent } from '../../shared/core-events.js';
import {
  claudeMcpAddCommand,
  desktopOptions,
  electronMissingMessage,
  findElectronBinary,
  linuxAutostartEntry,
  menuAction,
  navigationDecision,
  portFallbackNotice,
  secondInstanceAction,
  startFailureAdvice,
  startWithPortFallback,
  trayMenu,
  withCsp,
} from '../../src-main/electron/shell.js';

const temps: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'agent-rooms-shell-'));
  temps.push(d);
  return d;
};
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('desktop options', () => {
  it('defaults to port 7337, the userData home, and a visible window', () => {
    expect(desktopOptions(['/app/main.js'], {})).toEqual({ home: undefined, port: DEFAULT_PORT, portConfigured: false, hidden: false });
    expect(DEFAULT_PORT).toBe(7337);
  });

  it('reads --port and --home in both spellings, the flag winning over the environment', () => {
    expect(desktopOptions(['main.js', '--port', '9000'], { AGENT_ROOMS_PORT: '8000' })).toMatchObject({ port: 9000, portConfigured: true });
    expect(desktopOptions(['main.js', '--port=0'], {})).toMatchObject({ port: 0, portConfigured: true });
    expect(desktopOptions(['main.js'], { AGENT_ROOMS_PORT: '8000' })).toMatchObject({ port: 8000, portConfigured: true });
    expect(desktopOptions(['main.js', '--home=/data/rooms'], { AGENT_ROOMS_HOME: '/env' }).home).toBe('/data/rooms');
    expect(desktopOptions(['main.js'], { AGENT_ROOMS_HOME: '/env' }).home).toBe('/env');
  });

  it('ignores Chromium switches and refuses a port that is not one', () => {
    expect(desktopOptions(['main.js', '--no-sandbox', '--enable-logging', '--hidden'], {})).toMatchObject({ port: DEFAULT_PORT, hidden: true });
    expect(() => desktopOptions(['main.js', '--port', 'http'], {})).toThrow(/--port takes 0 to 65535/);
    expect(() => desktopOptions(['main.js'], { AGENT_ROOMS_PORT: '70000' })).toThrow(/AGENT_ROOMS_PORT/);
  });
});

describe('single instance', () => {
  it('a second launch focuses the running window, a second start at login does not', () => {
    expect(secondInstanceAction(['/opt/Agent Rooms/agent-rooms'])).toBe('focus');
    expect(secondInstanceAction(['/usr/bin/electron', 'main.js', '--port', '9000'])).toBe('focus');
    expect(secondInstanceAction(['/opt/Agent Rooms/agent-rooms', '--hidden'])).toBe('none');
  });
});

describe('port fallback', () => {
  let blocker: Server | undefined;
  const cores: RunningCore[] = [];
  afterEach(async () => {
    for (const c of cores.splice(0)) await c.close();
    await new Promise<void>((r) => (blocker ? blocker.close(() => r()) : r()));
    blocker = undefined;
  });

  it('starts the real core on a free port when the asked-for one is taken, and says so', async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', () => r()));
    const taken = (blocker.address() as { port: number }).port;
    const home = tmp();
    const started = await startWithPortFallback((port) => startCore({ home, port, log: () => {} }), taken);
    cores.push(started.running);
    expect(started.fellBackFrom).toBe(taken);
    expect(started.running.port).not.toBe(taken);
    const health = await fetch(`${started.running.baseUrl}/healthz`);
    expect(health.status).toBe(200);
    const notice = portFallbackNotice(taken, started.running.port);
    expect(notice.title).toContain(String(started.running.port));
    expect(notice.body).toContain(`Port ${taken} is in use`);
  });

  it("gives the shell the primary owner's events through RunningCore, with the owner's id", async () => {
    const running = await startCore({ home: tmp(), port: 0, log: () => {} });
    cores.push(running);
    const seen: Array<{ type: string; ownerId: string }> = [];
    const off = running.onOwnerEvent((e, ownerId) => void seen.push({ type: e.type, ownerId }));
    const room = await fetch(`${running.baseUrl}/v1/rooms`, {
      method: 'POST',
      headers: { authorization: `Bearer ${running.ownerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Shell events' }),
    });
    expect(room.status).toBe(201);
    expect(seen.length).toBeGreaterThan(0);
    const me = await (await fetch(`${running.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${running.ownerToken}` } })).json();
    expect(new Set(seen.map((e) => e.ownerId))).toEqual(new Set([me.owner_id]));
    off();
    const before = seen.length;
    running.core.bus.emit({ type: 'backup.changed', owners: [me.owner_id] } as CoreEvent);
    expect(seen.length).toBe(before);
  });

  it('uses the asked-for port when it is free, and passes other failures through', async () => {
    const asked: number[] = [];
    const ok = await startWithPortFallback(async (port) => (asked.push(port), 'core'), 7337);
    expect(ok).toEqual({ running: 'core' });
    expect(asked).toEqual([7337]);
    await expect(startWithPortFallback(async () => Promise.reject(new Error('disk full')), 7337)).rejects.toThrow('disk full');
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    // A free port asked for explicitly and still refused is not retried forever.
    await expect(startWithPortFallback(async () => Promise.reject(inUse), 0)).rejects.toThrow('EADDRINUSE');
  });
});

describe('tray menu commands', () => {
  const ctx = { baseUrl: 'http://127.0.0.1:7337', home: '/home/ada/.config/Agent Rooms', openAtLogin: false };

  it('offers open, copy a sign-in link, copy MCP URL, copy the claude command, data folder, start at login and quit', () => {
    const items = trayMenu({ baseUrl: ctx.baseUrl, openAtLogin: true });
    expect(items.filter((i) => i.kind !== 'separator' && i.kind !== 'label').map((i) => i.id)).toEqual([
      'open-window',
      'copy-sign-in-link',
      'copy-mcp-url',
      'copy-claude-command',
      'open-data-folder',
      'start-at-login',
      'quit',
    ]);
    expect(items.find((i) => i.id === 'start-at-login')).toMatchObject({ kind: 'checkbox', checked: true });
    expect(items[0]).toMatchObject({ kind: 'label', label: 'Running on http://127.0.0.1:7337' });
  });

  it('copies the MCP URL and the exact `claude mcp add` command', () => {
    expect(menuAction('copy-mcp-url', ctx)).toEqual({ kind: 'copy', text: 'http://127.0.0.1:7337/mcp' });
    const cmd = 'claude mcp add --transport http agent-rooms http://127.0.0.1:7337/mcp/claude-code --header "Authorization: Bearer <agent credential>"';
    expect(claudeMcpAddCommand(ctx.baseUrl)).toBe(cmd);
    expect(menuAction('copy-claude-command', { ...ctx, baseUrl: 'http://127.0.0.1:50123' })).toEqual({
      kind: 'copy',
      text: cmd.replace('7337', '50123'),
    });
  });

  it('opens the data folder, toggles start at login with --hidden, shows the window and quits', () => {
    expect(menuAction('open-data-folder', ctx)).toEqual({ kind: 'open-folder', path: ctx.home });
    expect(menuAction('start-at-login', ctx)).toEqual({ kind: 'set-open-at-login', enabled: true, args: ['--hidden'] });
    expect(menuAction('start-at-login', { ...ctx, openAtLogin: true })).toMatchObject({ enabled: false });
    expect(menuAction('open-window', ctx)).toEqual({ kind: 'show-window' });
    // The link is minted when clicked, never kept in the menu.
    expect(menuAction('copy-sign-in-link', ctx)).toEqual({ kind: 'copy-sign-in-link' });
    expect(JSON.stringify(trayMenu({ baseUrl: ctx.baseUrl, openAtLogin: false }))).not.toContain('token');
    expect(menuAction('quit', ctx)).toEqual({ kind: 'quit' });
  });

  it('writes an XDG autostart entry that survives spaces and quotes in paths', () => {
    const entry = linuxAutostartEntry(['/opt/Agent Rooms/agent-rooms', '--hidden']);
    expect(entry).toContain('[Desktop Entry]\nType=Application\nName=Agent Rooms\n');
    expect(entry).toContain('Exec="/opt/Agent Rooms/agent-rooms" --hidden\n');
    expect(linuxAutostartEntry(['/a/100%/b"c'])).toContain('Exec="/a/100%%/b\\"c"');
  });
});

describe('navigation lock and CSP', () => {
  const origin = 'http://127.0.0.1:7337';

  it('keeps the core in the app, sends web links to the browser, refuses the rest', () => {
    const cases: Array<[string, string]> = [
      ['http://127.0.0.1:7337/', 'allow'],
      ['http://127.0.0.1:7337/rooms/room_1?x=1#y', 'allow'],
      ['https://github.com/org/repo', 'external'],
      ['http://example.com/', 'external'],
      ['mailto:ada@example.com', 'external'],
      ['http://127.0.0.1:8080/', 'deny'],
      ['http://localhost:7337/', 'deny'],
      ['file:///etc/passwd', 'deny'],
      ['javascript:alert(1)', 'deny'],
      ['vscode://file/x', 'deny'],
      ['not a url', 'deny'],
    ];
    for (const [url, want] of cases) expect([url, navigationDecision(url, origin)]).toEqual([url, want]);
  });

  it("sets the core's CSP on everything the core serves, replacing what was there", () => {
    const out = withCsp({ 'content-security-policy': ["default-src *"], 'Content-Type': ['text/html'] }, `${origin}/`, origin);
    expect(out['Content-Security-Policy']).toEqual([CSP]);
    expect(out['content-security-policy']).toBeUndefined();
    expect(out['Content-Type']).toEqual(['text/html']);
    expect(CSP).toContain("default-src 'self'");
    expect(CSP).toContain("object-src 'none'");
    expect(CSP).not.toContain('unsafe-eval');
    expect(withCsp({ 'content-type': ['text/html'] }, `${origin}/assets/app.js`, origin)['Content-Security-Policy']).toEqual([CSP]);
    expect(withCsp({ a: ['b'] }, 'https://example.com/', origin)).toEqual({ a: ['b'] });
    expect(withCsp(undefined, 'devtools://devtools/x', origin)).toEqual({});
  });
});

describe('the Electron binary and start failures', () => {
  it('finds the binary through path.txt without downloading, or says what is missing', () => {
    const root = tmp();
    expect(findElectronBinary(root, {})).toEqual({ missing: expect.stringContaining('not installed') });
    const pkg = join(root, 'node_modules', 'electron');
    mkdirSync(join(pkg, 'dist'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), '{"name":"electron"}');
    const noBinary = findElectronBinary(root, {});
    expect(noBinary).toEqual({ missing: expect.stringContaining('never downloaded') });
    expect(electronMissingMessage((noBinary as { missing: string }).missing)).toMatch(/npx install-electron[\s\S]*ELECTRON_OVERRIDE_DIST_PATH[\s\S]*npm run serve/);
    writeFileSync(join(pkg, 'path.txt'), 'electron');
    writeFileSync(join(pkg, 'dist', 'electron'), '');
    expect(findElectronBinary(root, {})).toEqual({ path: join(pkg, 'dist', 'electron') });
    const other = tmp();
    writeFileSync(join(other, 'electron'), '');
    expect(findElectronBinary(root, { ELECTRON_OVERRIDE_DIST_PATH: other })).toEqual({ path: join(other, 'electron') });
  });

  it('explains a better-sqlite3 built for Node rather than Electron', () => {
    const abi = new Error("The module 'better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 139.");
    expect(startFailureAdvice(abi)).toContain('npx @electron/rebuild --only better-sqlite3');
    expect(startFailureAdvice(new Error('disk full'))).toBe('disk full');
  });
});

describe('the shell and the core', () => {
  it('imports the core only through its public entry (start.ts), beside shared/ (docs/architecture.md "Services")', () => {
    const dir = new URL('../../src-main/electron/', import.meta.url);
    const seen: string[] = [];
    for (const f of readdirSync(dir).filter((n) => /\.c?ts$/.test(n))) {
      const text = readFileSync(new URL(f, dir), 'utf8');
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.\.\/[^']+)'/g)) seen.push(`${f}: ${m[1]}`);
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((s) => !/: \.\.\/core\/start\.js$|: \.\.\/\.\.\/shared\//.test(s))).toEqual([]);
  });
});
