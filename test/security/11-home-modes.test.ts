// Item 11: the data home holds the owner token, the keys and every room: it was created with
// default modes (rooms.db and server.json 0644, folders 0755), and runner env secrets were
// stored in clear. The attack is another local user reading the home, and anyone reading the
// database file. Now the home and its folders are 0700 and its files 0600, repaired at every
// start with a warning, and runner env values are sealed at rest like the git token.
import { describe, it, expect, afterAll } from 'vitest';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startTestServer } from '../helpers/server.js';
import { getRunner } from '../../src-main/core/wakes/runners.js';

const skip = process.platform === 'win32' ? 'POSIX modes do not apply on Windows' : undefined;
if (skip) console.warn(`test/security/11-home-modes.test.ts: ${skip}`);

/** Every path under the home with its mode, symbolic links left out. */
function modes(home: string): Array<[string, number, boolean]> {
  const out: Array<[string, number, boolean]> = [];
  const walk = (p: string, rel: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    out.push([rel, st.mode & 0o777, st.isDirectory()]);
    if (st.isDirectory()) for (const n of readdirSync(p)) walk(join(p, n), rel === '.' ? n : `${rel}/${n}`);
  };
  walk(home, '.');
  return out;
}

function expectPrivate(home: string) {
  const wrong = modes(home).filter(([, mode, dir]) => mode !== (dir ? 0o700 : 0o600));
  expect(wrong.map(([p, m]) => `${p} ${m.toString(8)}`)).toEqual([]);
}

const SECRET = 'sk-live-runner-secret-0123456789abcdef';

describe.skipIf(!!skip)('item 11: data home modes and secrets at rest', () => {
  const homes: string[] = [];
  const newHome = () => {
    const parent = mkdtempSync(join(tmpdir(), 'agent-rooms-modes-'));
    homes.push(parent);
    return join(parent, 'home');
  };
  afterAll(() => {
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  it('a new home is 0700 with every folder 0700 and every file 0600, while the server runs', async () => {
    const home = newHome();
    const s = await startTestServer({ home });
    try {
      const a = await s.agent('Writer');
      const room = await s.room('Files');
      await s.join(room, a.plate);
      const c = await s.connect(a.credential);
      await c.callTool({ name: 'write_file', arguments: { room, path: 'notes.md', content: 'hello' } });
      expect(existsSync(join(home, 'rooms.db-wal'))).toBe(true);
      expect(existsSync(join(home, 'server.json'))).toBe(true);
      expectPrivate(home);
    } finally {
      await s.stop();
    }
  });

  it('a home left readable by others is repaired at start, with a warning', async () => {
    const home = newHome();
    const first = await startTestServer({ home });
    await first.stop();
    // What a copy, a restore or an older version leaves behind.
    chmodSync(home, 0o755);
    for (const [rel, , dir] of modes(home)) if (rel !== '.') chmodSync(join(home, rel), dir ? 0o755 : 0o644);
    mkdirSync(join(home, 'backups'), { mode: 0o755 });
    writeFileSync(join(home, 'backups', 'old.db'), 'x', { mode: 0o644 });
    chmodSync(join(home, 'backups', 'old.db'), 0o644);
    const logs: string[] = [];
    const s = await startTestServer({ home, log: (l) => logs.push(l) });
    try {
      expectPrivate(home);
      const warning = logs.find((l) => l.includes('readable by other users'));
      expect(warning).toBeDefined();
      expect(warning).not.toContain(s.ownerToken);
    } finally {
      await s.stop();
    }
  });

  it('runner env values are sealed in the database, and still reach the runner', async () => {
    const home = newHome();
    const s = await startTestServer({ home });
    let plate: string;
    try {
      const a = await s.agent('Runner');
      plate = a.plate;
      const put = await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: '/usr/bin/env', args: ['x'], cwd: '/tmp', env: { API_KEY: SECRET } });
      expect(put.status).toBe(200);
      expect(getRunner(s.running.core.db, a.plate, 'codex')!.env).toEqual({ API_KEY: SECRET });
      const row = s.running.core.db.prepare("SELECT env FROM runners WHERE host = 'codex'").get() as { env: string };
      expect(row.env).toMatch(/^sealed:/);
      expect(row.env).not.toContain(SECRET);
      // A sealed value copied to another runner's row does not open there.
      expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/gemini`, { command: '/usr/bin/env', cwd: '/tmp', env: { X: 'y' } })).status).toBe(200);
      s.running.core.db.prepare("UPDATE runners SET env = ? WHERE host = 'gemini'").run(row.env);
      expect(() => getRunner(s.running.core.db, a.plate, 'gemini')).toThrow();
      s.running.core.db.prepare("DELETE FROM runners WHERE host = 'gemini'").run();
    } finally {
      await s.stop();
    }
    // Whoever reads the database files finds no env value in them.
    for (const f of readdirSync(home).filter((n) => n.startsWith('rooms.db'))) expect(readFileSync(join(home, f)).includes(SECRET), f).toBe(false);

    // A value stored in clear by an earlier version is sealed at the next start.
    const db = new Database(join(home, 'rooms.db'));
    db.prepare("UPDATE runners SET env = ? WHERE host = 'codex'").run(JSON.stringify({ LEGACY: 'legacy-secret-value-42' }));
    db.close();
    const again = await startTestServer({ home });
    try {
      const row = again.running.core.db.prepare("SELECT env FROM runners WHERE host = 'codex'").get() as { env: string };
      expect(row.env).toMatch(/^sealed:/);
      expect(getRunner(again.running.core.db, plate!, 'codex')!.env).toEqual({ LEGACY: 'legacy-secret-value-42' });
    } finally {
      await again.stop();
    }
  });
});
