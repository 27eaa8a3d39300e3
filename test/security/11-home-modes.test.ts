// Item 11: the data home holds the owner token, the keys and every room: it was created with
// default modes (rooms.db and server.json 0644, folders 0755), and runner env secrets were
// stored in clear. The attack is another local user reading the home, and anyone reading the
// database file. Now the home and its folders are 0700 and its files 0600, repaired at every
// start with a warning, and runner env values are sealed at rest like the git token.
import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openTestApp } from '../helpers/app.js';
import { getRunner } from '../../src-main/core/wakes/runners.js';

const skip = process.platform === 'win32' ? 'POSIX modes do not apply on Windows' : undefined;
if (skip) console.warn(`test/security/11-home-modes.test.ts: ${skip}`);

const SECRET = 'sk-live-runner-secret-0123456789abcdef';

describe.skipIf(!!skip)('item 11: data home modes and secrets at rest', () => {
  const homes: string[] = [];
  const newHome = () => {
    const home = mkdtempSync(join(tmpdir(), 'agent-rooms-modes-'));
    homes.push(home);
    return home;
  };
  afterAll(() => {
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  // The modes the server's start gives the home, and their repair at start with a warning, are
  // checked where the server starts: test/integration/core-sessions.test.ts "the home at start".
  // Sealing is the core's own rule (assembleCore): tested in process on a home's database file.
  it('runner env values are sealed in the database, and still reach the runner', async () => {
    const home = newHome();
    const s = await openTestApp({ database: 'home', home });
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
    const again = await openTestApp({ database: 'home', home });
    try {
      const row = again.running.core.db.prepare("SELECT env FROM runners WHERE host = 'codex'").get() as { env: string };
      expect(row.env).toMatch(/^sealed:/);
      expect(getRunner(again.running.core.db, plate!, 'codex')!.env).toEqual({ LEGACY: 'legacy-secret-value-42' });
    } finally {
      await again.stop();
    }
  });
});
