// The package is complete: its app folder, laid out as electron-builder lays it out (its
// `files`, its production node_modules with its hoisting, package.json with extraMetadata),
// is copied to a folder outside the checkout, and `agent-rooms serve` is started from there
// under plain Node on a temporary home. Everything the core needs must be in the folder:
// there is no node_modules above it to fall back on. No Electron binary needed.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { assembleApp, loadBuilderConfig, whyNotBuilt } from '../helpers/packaging.js';

const skipReason = whyNotBuilt();
if (skipReason) console.warn(`test/integration/packaging-layout.test.ts skipped: ${skipReason}`);

describe.skipIf(skipReason !== undefined)('the packaged app folder starts the core under plain Node', () => {
  let app: string;
  let home: string;
  let proc: ChildProcess;
  let exited: Promise<number | null>;
  let baseUrl = '';
  let stdout = '';
  let stderr = '';

  beforeAll(async () => {
    app = mkdtempSync(join(tmpdir(), 'agent-rooms-packaged-'));
    home = mkdtempSync(join(tmpdir(), 'agent-rooms-packaged-home-'));
    const config = await loadBuilderConfig();
    await assembleApp(config, app);
    // `agent-rooms serve`: the bin script is not packaged, so run what it runs.
    proc = spawn(process.execPath, [join(app, 'dist/src-main/core/cli.js'), 'serve', '--port', '0', '--home', home], {
      cwd: app,
      env: { ...process.env, NODE_PATH: '', NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    exited = new Promise((r) => proc.once('exit', (code) => r(code)));
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready line in 30 s\nstdout: ${stdout}\nstderr: ${stderr}`)), 30_000);
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`the packaged core exited (${code})\nstdout: ${stdout}\nstderr: ${stderr}`));
      });
      proc.stdout!.on('data', (d: Buffer) => {
        stdout += d.toString();
        const m = /agent-rooms listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
  });

  afterAll(async () => {
    if (proc && proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL');
      await exited;
    }
    for (const d of [app, home]) if (d) rmSync(d, { recursive: true, force: true });
  });

  it('prints the ready line and runs from the folder’s own files and native module', () => {
    expect(stdout).toMatch(/agent-rooms listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(existsSync(join(app, 'node_modules/electron'))).toBe(false);
    expect(existsSync(join(app, 'src-main'))).toBe(false);
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.main).toBe('dist/src-main/electron/main.js');
    expect(pkg).not.toHaveProperty('devDependencies');
    if (process.platform === 'linux') {
      // The SQLite addon mapped into the process is the packaged copy.
      const maps = readFileSync(`/proc/${proc.pid}/maps`, 'utf8');
      const addon = maps.split('\n').find((l) => l.includes('better_sqlite3.node'));
      expect(addon).toContain(join(app, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'));
    }
  });

  it('answers MCP initialize for an agent credential', async () => {
    const owner = readFileSync(join(home, 'owner-token'), 'utf8').trim();
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(baseUrl + path, {
        method,
        headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return (await res.json()) as any;
    };
    const agent = await api('POST', '/v1/agents', { name: 'Packaged' });
    const { credential } = await api('POST', `/v1/agents/${agent.plate}/credentials`, { device: 'packaging-test' });
    const client = new Client({ name: 'packaging-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${credential}` } } }));
    try {
      expect(client.getServerVersion()?.name).toBeTruthy();
      expect(client.getInstructions()).toBeTruthy();
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('send_message');
    } finally {
      await client.close();
    }
  });

  it('serves the UI’s index and its bundle from the packaged renderer', async () => {
    const res = await fetch(baseUrl + '/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const packaged = readFileSync(join(app, 'dist/renderer/index.html'), 'utf8');
    const script = /<script[^>]+src="([^"]+\.js)"/.exec(packaged)?.[1];
    expect(script, 'index.html names its bundle').toBeTruthy();
    expect(html).toContain(script!);
    const js = await fetch(new URL(script!, baseUrl + '/'));
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(Buffer.from(await js.arrayBuffer()).equals(readFileSync(join(app, 'dist/renderer', script!.replace(/^\//, ''))))).toBe(true);
  });

  it('stops cleanly on SIGTERM', async () => {
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(join(home, 'server.json'))).toBe(false);
  });
});
