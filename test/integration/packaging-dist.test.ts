// The dist scripts (scripts/dist.mjs behind npm run dist, dist:linux, dist:dir) on a machine
// that cannot reach Electron's hosts: each says in one line what is missing and how to provide
// it, never a stack. Downloads are pointed at a closed local port or a local server, so nothing
// waits on the network. Then electron-builder's own dir build, run for real with a stand-in
// Electron binary (no native rebuild): its app.asar holds exactly the files the packaging
// tests compute, with better-sqlite3's addon unpacked.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, ensureShellBuilt, loadBuilderConfig, packagedFiles, transformedPackageJson, whyNotBuilt } from '../helpers/packaging.js';
import { downloadFailureLine } from '../../scripts/dist.mjs';

const require = createRequire(import.meta.url);
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'node_modules/electron/package.json'), 'utf8')) as { version: string }).version;
const ZIP = `electron-v${VERSION}-${process.platform}-${process.arch}.zip`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs scripts/dist.mjs asynchronously; killed after `ms` so a test can never hang on it. */
function dist(args: string[], env: Record<string, string>, ms = 60_000): Promise<Run> {
  const clean = { ...process.env };
  for (const k of ['ELECTRON_OVERRIDE_DIST_PATH', 'ELECTRON_CACHE', 'ELECTRON_MIRROR', 'ELECTRON_CUSTOM_DIR', 'ELECTRON_HEADERS_MIRROR', 'AGENT_ROOMS_DIST_DEBUG']) delete clean[k];
  const child = spawn(process.execPath, [join(ROOT, 'scripts/dist.mjs'), ...args], { cwd: ROOT, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function expectOneLine(r: Run, ...mentions: RegExp[]): string {
  expect(r.code, r.stderr).toBe(1);
  const lines = r.stderr.split('\n').filter((l) => l.length > 0);
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^agent-rooms dist: /);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  for (const m of mentions) expect(lines[0]).toMatch(m);
  return lines[0]!;
}

/** A port nothing listens on: connections are refused at once. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('npm run dist, dist:linux and dist:dir where Electron’s hosts cannot be reached', () => {
  let tmp: string;
  let env: Record<string, string>;
  let refused: string;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'agent-rooms-dist-'));
    refused = `http://127.0.0.1:${await closedPort()}/`;
    // An empty home and caches: no Electron zip, no headers in ~/.electron-gyp.
    env = {
      HOME: join(tmp, 'home'),
      XDG_CACHE_HOME: join(tmp, 'cache'),
      ELECTRON_CACHE: join(tmp, 'electron-cache'),
      ELECTRON_MIRROR: refused,
      ELECTRON_HEADERS_MIRROR: refused,
      AGENT_ROOMS_DIST_PROBE_TIMEOUT_MS: '5000',
    };
    mkdirSync(env.ELECTRON_CACHE!, { recursive: true });
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('the npm scripts are the wrapper', () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.dist).toBe('node scripts/dist.mjs');
    expect(scripts['dist:linux']).toBe('node scripts/dist.mjs --linux');
    expect(scripts['dist:dir']).toBe('node scripts/dist.mjs --dir');
  });

  for (const args of [[], ['--linux'], ['--dir']]) {
    it(`no Electron anywhere: dist.mjs ${args.join(' ') || '(this platform)'} names ELECTRON_CACHE, electronDist and a mirror`, async () => {
      const r = await dist(args, env);
      const line = expectOneLine(r, /Electron \d+\.\d+\.\d+ download cannot be reached/, /ELECTRON_CACHE/, /ELECTRON_OVERRIDE_DIST_PATH \(electronDist\)/, /ELECTRON_MIRROR/, /ECONNREFUSED/);
      expect(line).toContain(`electron-v${VERSION}-${args[0] === '--linux' ? 'linux' : process.platform}-${process.arch}.zip`);
      expect(r.stdout).toBe('');
    });
  }

  it('Electron in ELECTRON_CACHE but no headers: names ELECTRON_HEADERS_MIRROR and ~/.electron-gyp', async () => {
    // @electron/get keeps one folder per download URL; the zip is found there without a download.
    const cache = join(tmp, 'seeded-cache');
    mkdirSync(join(cache, 'abc123'), { recursive: true });
    writeFileSync(join(cache, 'abc123', ZIP), 'stand-in');
    const r = await dist(['--dir'], { ...env, ELECTRON_CACHE: cache });
    expectOneLine(r, /headers \(to rebuild better-sqlite3 for Electron\)/, /ELECTRON_HEADERS_MIRROR/, /\.electron-gyp/, /ECONNREFUSED/);
  });

  it('npm run rebuild:electron without headers: the same one line, and node_modules untouched', async () => {
    const addon = join(ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    const before = statSync(addon).mtimeMs;
    const child = spawn(process.execPath, [join(ROOT, 'scripts/native.mjs'), 'electron'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    clearTimeout(timer);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^agent-rooms native: Electron .* headers .*ELECTRON_HEADERS_MIRROR/);
    expect(statSync(addon).mtimeMs).toBe(before);
  });

  it('ELECTRON_OVERRIDE_DIST_PATH pointing nowhere says so', async () => {
    const r = await dist(['--dir'], { ...env, ELECTRON_OVERRIDE_DIST_PATH: join(tmp, 'no-such-electron') });
    expectOneLine(r, /ELECTRON_OVERRIDE_DIST_PATH=.*does not exist/);
  });

  it('a download electron-builder itself fails to make is one line too (mirror answers the probe, not the download)', async (ctx) => {
    const server: Server = createServer((req, res) => {
      res.writeHead(req.method === 'HEAD' ? 200 : 404);
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      if (whyNotBuilt()) ctx.skip(); // electron-builder packs dist/: it must exist to get as far as the download
      ensureShellBuilt();
      const mirror = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
      const r = await dist(['--dir', '--no-build', '--no-rebuild', `--output=${join(tmp, 'out-404')}`], { ...env, ELECTRON_MIRROR: mirror }, 120_000);
      expect(r.code, r.stderr).toBe(1);
      // electron-builder logs its progress; the failure itself is the last line, and no stack.
      const last = r.stderr.trim().split('\n').pop()!;
      expect(last).toMatch(/^agent-rooms dist: the Electron .* download failed \(Response code 404 at http:\/\/127\.0\.0\.1:\d+\/v.*\.zip\): .*ELECTRON_CACHE.*electronDist.*ELECTRON_MIRROR/);
      expect(r.stderr + r.stdout).not.toMatch(/^\s+at /m);
    } finally {
      await new Promise((r) => server.close(r));
    }
    // Above the child's own 120 s bound: on a busy machine electron-builder's work takes what it takes
    // (docs/testing.md "On a busy machine"); the child's bound is what fails the test.
  }, 150_000);

  it('classifies download failures by what was fetched, and leaves other failures alone', async () => {
    const refusedErr = await fetch(refused).catch((e: unknown) => e);
    expect(downloadFailureLine(refusedErr, VERSION)).toMatch(/download failed \((ECONNREFUSED|fetch failed)\)/);
    expect(downloadFailureLine(new Error('getaddrinfo ENOTFOUND github.com'), VERSION)).toMatch(/the Electron .* download failed \(ENOTFOUND\).*ELECTRON_MIRROR/);
    expect(downloadFailureLine(new Error('node-gyp failed: connect ETIMEDOUT www.electronjs.org/headers'), VERSION)).toMatch(/headers cannot be downloaded.*ELECTRON_HEADERS_MIRROR/);
    expect(downloadFailureLine(Object.assign(new Error('Response code 404'), { url: 'https://github.com/electron-userland/electron-builder-binaries/releases/download/fpm.tar.gz' }), VERSION)).toMatch(/ELECTRON_BUILDER_BINARIES_MIRROR/);
    expect(downloadFailureLine(new Error('Application entry file "x.js" does not exist'), VERSION)).toBeUndefined();
  });
});

const builtReason = whyNotBuilt();
if (builtReason) console.warn(`test/integration/packaging-dist.test.ts (dir build) skipped: ${builtReason}`);

describe.skipIf(builtReason !== undefined || process.platform !== 'linux')('electron-builder’s own dir build, with a stand-in Electron', () => {
  let tmp: string;
  afterAll(() => tmp && rmSync(tmp, { recursive: true, force: true }));

  it('packs exactly the computed files into app.asar and unpacks better-sqlite3’s addon', async () => {
    tmp = mkdtempSync(join(tmpdir(), 'agent-rooms-dist-dir-'));
    // Everything electron-builder copies from an unpacked Electron: the binary (renamed to the
    // executable name) and resources/. The app is never run here; the real one is in the e2e test.
    const fake = join(tmp, 'electron');
    mkdirSync(join(fake, 'resources'), { recursive: true });
    writeFileSync(join(fake, 'electron'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(fake, 'electron'), 0o755);
    const out = join(tmp, 'out');
    ensureShellBuilt();
    // What the config test computes (once per run: test/helpers/packaging.ts), worked out while electron-builder runs.
    const expectedFiles = loadBuilderConfig().then(async (config) => ({ config, files: (await packagedFiles(config)).map((f) => f.rel) }));
    const r = await dist(['--dir', '--no-build', '--no-rebuild', `--output=${out}`], { HOME: join(tmp, 'home'), ELECTRON_OVERRIDE_DIST_PATH: fake }, 180_000);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain('agent-rooms dist: done:');

    const resources = join(out, 'linux-unpacked', 'resources');
    expect(existsSync(join(out, 'linux-unpacked', 'agent-rooms-desktop'))).toBe(true);
    const asar = require('@electron/asar') as { getRawHeader(p: string): { header: AsarDir } };
    type AsarDir = { files: Record<string, AsarDir | { size: number; unpacked?: boolean }> };
    const listed: string[] = [];
    const unpacked: string[] = [];
    const walk = (dir: AsarDir, prefix: string) => {
      for (const [name, entry] of Object.entries(dir.files)) {
        const rel = prefix + name;
        if ('files' in entry) walk(entry, rel + '/');
        else {
          listed.push(rel);
          if (entry.unpacked) unpacked.push(rel);
        }
      }
    };
    walk(asar.getRawHeader(join(resources, 'app.asar')).header, '');

    const { config, files: expected } = await expectedFiles;
    expect(listed.sort()).toEqual(expected.sort());
    // asarUnpack names the addon; electron-builder's smartUnpack then keeps the whole module
    // that holds it beside the asar (its JS loads the addon by a relative path).
    expect(unpacked).toContain('node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    expect(unpacked.filter((f) => !f.startsWith('node_modules/better-sqlite3/'))).toEqual([]);
    expect(existsSync(join(resources, 'app.asar.unpacked/node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(true);
    const extract = require('@electron/asar') as { extractFile(a: string, f: string): Buffer };
    expect(JSON.parse(extract.extractFile(join(resources, 'app.asar'), 'package.json').toString())).toEqual(await transformedPackageJson(config));
    // Above the child's own 180 s bound: on a busy 2-core machine the dir build ran past 60 s (docs/testing.md "On a busy machine").
  }, 240_000);
});
