import { describe, it, expect, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { spawnServer, type ChildServer } from '../helpers/child.js';
import { cliArgs } from '../helpers/cli-bundle.js';
import { startTestServer } from '../helpers/server.js';
import { HOME_EXIT_CODES } from '../../src-main/core/db/home-errors.js';
import { tempDirs } from '../helpers/core.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI from source (cli-bundle.ts) in a child process (asynchronously) and collects its exit. */
function runCli(args: string[], opts: { env?: Record<string, string>; uid?: number; gid?: number; timeoutMs?: number } = {}): Promise<Ran> {
  const proc = spawn(process.execPath, [...cliArgs(), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    uid: opts.uid,
    gid: opts.gid,
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    const t = setTimeout(() => proc.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    proc.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A pid that existed and is gone now. */
async function deadPid(): Promise<number> {
  const p = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  const pid = p.pid!;
  await new Promise((r) => p.on('exit', r));
  return pid;
}

describe('one server per home', () => {
  const children: ChildServer[] = [];
  const { tmp, keep, removeAll } = tempDirs();
  afterAll(async () => {
    for (const c of children) if (c.proc.exitCode === null) await c.kill();
    removeAll();
  });

  it('a second serve on the same home (also on the same port) exits 3 naming the running URL and pid, and leaves the first alone', async () => {
    const home = tmp('ar-lock-');
    const first = await spawnServer(home);
    children.push(first);
    const sj = readFileSync(join(home, 'server.json'), 'utf8');
    for (const port of ['0', String(first.port)]) {
      const r = await runCli(['serve', '--port', port, '--home', home]);
      expect(r.code).toBe(HOME_EXIT_CODES.HOME_IN_USE);
      expect(r.stderr).toContain(first.baseUrl);
      expect(r.stderr).toContain(`pid ${first.proc.pid}`);
      expect(r.stderr).toContain(home);
      expect(r.stdout).not.toContain('listening');
      // Refused by the lock, not by the port: the same message either way.
      expect(r.stderr).not.toMatch(/EADDRINUSE|port is in use/);
    }
    expect(readFileSync(join(home, 'server.json'), 'utf8')).toBe(sj);
    const me = await fetch(`${first.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${first.ownerToken}` } });
    expect(me.status).toBe(200);
    expect(await first.stop()).toBe(0);
    expect(existsSync(join(home, 'server.lock'))).toBe(false);
    expect(existsSync(join(home, 'server.json'))).toBe(false);
  });

  it('the lock is checked before the database is opened: a locked home with a broken rooms.db is refused as in use, not as damaged', async () => {
    const home = tmp('ar-lock-first-');
    const garbage = randomBytes(8192);
    writeFileSync(join(home, 'rooms.db'), garbage);
    // This very test process holds the lock: a live pid.
    writeFileSync(join(home, 'server.lock'), JSON.stringify({ pid: process.pid, kind: 'serve', started_at: new Date().toISOString(), hostname: 'x', url: 'http://127.0.0.1:1' }));
    const r = await runCli(['serve', '--port', '0', '--home', home]);
    expect(r.code).toBe(HOME_EXIT_CODES.HOME_IN_USE);
    expect(r.stderr).toContain(`pid ${process.pid}`);
    expect(readFileSync(join(home, 'rooms.db')).equals(garbage)).toBe(true);
    expect(existsSync(join(home, 'rooms.db-wal'))).toBe(false);
  });

  it('a stale lock (its process is gone) is taken over; two servers racing for it: exactly one runs', async () => {
    const home = tmp('ar-stale-');
    const dead = await deadPid();
    writeFileSync(join(home, 'server.lock'), JSON.stringify({ pid: dead, kind: 'serve', started_at: '2020-01-01T00:00:00.000Z', hostname: 'x', url: 'http://127.0.0.1:9' }));
    const results = await Promise.allSettled([spawnServer(home), spawnServer(home)]);
    const up = results.filter((r): r is PromiseFulfilledResult<ChildServer> => r.status === 'fulfilled');
    const down = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    up.forEach((u) => children.push(u.value));
    expect(up.length).toBe(1);
    expect(down.length).toBe(1);
    expect(String(down[0]!.reason)).toMatch(/exited early \(3\)/);
    const lock = JSON.parse(readFileSync(join(home, 'server.lock'), 'utf8'));
    expect(lock.pid).toBe(up[0]!.value.proc.pid);
    expect(lock.url).toBe(up[0]!.value.baseUrl);
    // A crash leaves the lock behind; the next start takes it over.
    await up[0]!.value.kill();
    expect(existsSync(join(home, 'server.lock'))).toBe(true);
    const again = await spawnServer(home);
    children.push(again);
    expect(JSON.parse(readFileSync(join(home, 'server.lock'), 'utf8')).pid).toBe(again.proc.pid);
    expect(await again.stop()).toBe(0);
  });

  it('restore is refused while a server runs on the home, and the home is left as it was', async () => {
    const home = tmp('ar-restore-busy-');
    const s = await spawnServer(home);
    children.push(s);
    const b = await runCli(['backup', '--home', home]);
    expect(b.code, b.stderr).toBe(0);
    const path = /backup verified: (\S+)/.exec(b.stdout)![1]!;
    const r = await runCli(['restore', path, '--home', home]);
    expect(r.code).toBe(HOME_EXIT_CODES.HOME_IN_USE);
    expect(r.stderr).toContain(s.baseUrl);
    expect(readFileSync(join(home, 'server.lock'), 'utf8')).toContain(String(s.proc.pid));
    expect((await fetch(`${s.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${s.ownerToken}` } })).status).toBe(200);
    expect(await s.stop()).toBe(0);
    // Once stopped, the same restore works and keeps the previous home aside.
    const ok = await runCli(['restore', path, '--home', home]);
    expect(ok.code, ok.stderr).toBe(0);
    const previous = /previous home is kept at (\S+);/.exec(ok.stdout)![1]!;
    keep(previous);
    expect(existsSync(join(previous, 'rooms.db'))).toBe(true);
    expect(existsSync(join(home, 'backups', 'last.json'))).toBe(true);
    // The restored home serves: the core in this process (a child's start is what the cases above prove).
    const back = await startTestServer({ home });
    expect((await back.api('GET', '/v1/me')).status).toBe(200);
    await back.stop();
  });
});

describe('refused homes: each names the path and the fix, with its own exit code', () => {
  const { tmp, keep, removeAll } = tempDirs();
  afterAll(removeAll);

  /** A real home with some data, stopped, its database padded past a few MiB so 64 KiB mid-file hits table pages. */
  async function stoppedHome(prefix: string): Promise<string> {
    const home = tmp(prefix);
    const s = await startTestServer({ home });
    const room = await s.room('r');
    for (let i = 0; i < 5; i++) await s.api('POST', `/v1/rooms/${room}/messages`, { body: `hello ${i}` });
    await s.stop();
    const db = new Database(join(home, 'rooms.db'));
    db.exec('CREATE TABLE pad (x TEXT)');
    const ins = db.prepare('INSERT INTO pad VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < 6000; i++) ins.run(randomBytes(300).toString('hex'));
    })();
    db.close();
    return home;
  }

  function corrupt(file: string) {
    const size = statSync(file).size;
    const fd = openSync(file, 'r+');
    writeSync(fd, randomBytes(64 * 1024), 0, 64 * 1024, Math.floor(size / 2 / 4096) * 4096);
    closeSync(fd);
  }

  it('a database with 64 KiB overwritten mid-file: exit 7, the file named, quick_check and the latest backup to restore', async () => {
    const home = await stoppedHome('ar-corrupt-');
    const b = await runCli(['backup', '--home', home]);
    expect(b.code, b.stderr).toBe(0);
    const latest = /backup verified: (\S+)/.exec(b.stdout)![1]!;
    corrupt(join(home, 'rooms.db'));
    const r = await runCli(['serve', '--port', '0', '--home', home]);
    expect(r.code).toBe(HOME_EXIT_CODES.DATABASE_CORRUPT);
    expect(r.stderr).toContain(join(home, 'rooms.db'));
    expect(r.stderr).toMatch(/damaged/);
    expect(r.stderr).toContain(`agent-rooms restore "${latest}"`);
    expect(r.stdout).not.toContain('listening');
    // And the restore it names brings the home back.
    const back = await runCli(['restore', latest, '--home', home]);
    expect(back.code, back.stderr).toBe(0);
    keep(/previous home is kept at (\S+);/.exec(back.stdout)![1]!);
    const s = await startTestServer({ home });
    expect((await s.api('GET', '/v1/me')).status).toBe(200);
    await s.stop();
  });

  it('a large damaged file is checked after the ready line and still stops the server with exit 7', async () => {
    const home = await stoppedHome('ar-corrupt-late-');
    corrupt(join(home, 'rooms.db'));
    // Every file counts as "large" here: the check runs in a worker after listening.
    const r = await runCli(['serve', '--port', '0', '--home', home], { env: { AGENT_ROOMS_QUICK_CHECK_SYNC_BYTES: '0' } });
    expect(r.code).toBe(HOME_EXIT_CODES.DATABASE_CORRUPT);
    expect(r.stderr).toContain(join(home, 'rooms.db'));
    expect(r.stderr).toMatch(/quick_check|damaged/);
    expect(existsSync(join(home, 'server.lock'))).toBe(false);
  });

  it('a rooms.db that is not a database: exit 6 naming the file', async () => {
    const home = tmp('ar-notdb-');
    writeFileSync(join(home, 'rooms.db'), 'these are my notes, not a database\n'.repeat(300));
    const r = await runCli(['serve', '--port', '0', '--home', home]);
    expect(r.code).toBe(HOME_EXIT_CODES.NOT_A_DATABASE);
    expect(r.stderr).toContain(join(home, 'rooms.db'));
    expect(r.stderr).toMatch(/not an agent-rooms database.*Fix:/s);
    expect(existsSync(join(home, 'server.lock'))).toBe(false);
  });

  it('a home that is a file: exit 4', async () => {
    const file = join(tmp('ar-homefile-'), 'home');
    writeFileSync(file, 'x');
    const r = await runCli(['serve', '--port', '0', '--home', file]);
    expect(r.code).toBe(HOME_EXIT_CODES.HOME_PERMISSIONS);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toMatch(/not a folder.*Fix:/s);
  });

  it('a port taken by another program: exit 8', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    try {
      const r = await runCli(['serve', '--port', String(port), '--home', join(tmp('ar-port-'), 'home')]);
      expect(r.code).toBe(HOME_EXIT_CODES.PORT_IN_USE);
      expect(r.stderr).toMatch(/port is in use.*--port/s);
    } finally {
      srv.close();
    }
  });

  // Permission cases need a user the files do not belong to: as root, the test runs the server as "nobody".
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!asRoot) console.log('skipping the permission cases: they run the server as uid 65534, which needs root');
  it.skipIf(!asRoot)('permissions and read-only folders, as another user: exit 4 and 5 with the fix', async () => {
    const base = tmp('ar-perm-');
    chmodSync(base, 0o755);
    const nobody = { uid: 65534, gid: 65534 };
    // Cannot create the home inside a folder of someone else's.
    const r1 = await runCli(['serve', '--port', '0', '--home', join(base, 'home')], nobody);
    expect(r1.code).toBe(HOME_EXIT_CODES.HOME_PERMISSIONS);
    expect(r1.stderr).toMatch(/cannot create the home .*permission denied.*Fix:/s);
    // A home of one's own that is read-only.
    const ro = join(base, 'ro');
    mkdirSync(ro, { mode: 0o500 });
    chownSync(ro, nobody.uid, nobody.gid);
    chmodSync(ro, 0o500);
    const r2 = await runCli(['serve', '--port', '0', '--home', ro], nobody);
    expect(r2.code).toBe(HOME_EXIT_CODES.HOME_READ_ONLY);
    expect(r2.stderr).toContain(`chmod u+rwx "${ro}"`);
    // A home of one's own holding a database of another user's.
    const mixed = join(base, 'mixed');
    mkdirSync(mixed, { mode: 0o700 });
    chownSync(mixed, nobody.uid, nobody.gid);
    writeFileSync(join(mixed, 'rooms.db'), '', { mode: 0o600 });
    const r3 = await runCli(['serve', '--port', '0', '--home', mixed], nobody);
    expect(r3.code).toBe(HOME_EXIT_CODES.HOME_PERMISSIONS);
    expect(r3.stderr).toContain(join(mixed, 'rooms.db'));
    expect(r3.stderr).toMatch(/another user.*chown/s);
  });
});
