import { describe, it, expect, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ok } from '../helpers/server.js';
import { waitFor, tempDirs } from '../helpers/core.js';
import { exportRoom } from '../../src-main/core/backup/export.js';
import type { BackupResult } from '../../src-main/core/backup/backup.js';
import { openTestApp } from '../helpers/app.js';
import { cliArgs } from '../helpers/cli-bundle.js';

function lines(file: string): any[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

function run(cmd: string, args: string[]): Promise<{ code: number | null; stdout: string }> {
  const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  return new Promise((r) => p.on('exit', (code) => r({ code, stdout })));
}

describe('export, snapshots and the backup routes', () => {
  const { tmp, removeAll } = tempDirs();
  afterAll(removeAll);

  it('export writes a readable folder and a tar: messages, tasks, decisions as JSON lines, files as files, no secrets', async () => {
    const s = await openTestApp({ home: tmp('ar-export-'), database: 'home' });
    try {
      const room = await s.room('Launch Plan');
      const a = await s.agent('builder');
      await s.join(room, a.plate);
      const mcp = await s.connect(a.credential);
      await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'Ünïcode ✓ and a "quote"' });
      await ok(mcp, 'send_message', { room, body: 'agent here' });
      const t = await s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'Ship it', definition_of_done: 'released', assignee: a.handle });
      expect(t.status, JSON.stringify(t.body)).toBe(201);
      await s.api('POST', `/v1/rooms/${room}/decisions`, { text: 'We use SQLite.' });
      await ok(mcp, 'write_file', { room, path: 'docs/plan.md', content: '# v1' });
      await ok(mcp, 'write_file', { room, path: 'docs/plan.md', content: '# v2' });
      const other = await s.room('Other');
      await s.api('POST', `/v1/rooms/${other}/messages`, { body: 'not exported' });
      // A message answered before its inbox rows were written keeps them in `parked` (messages/parked.ts): bookkeeping, not exported.
      s.running.core.db.prepare(`UPDATE messages SET parked = '[]' WHERE body = 'agent here'`).run();

      // By name, while the server runs (its own read-only connection).
      const dest = join(tmp('ar-export-out-'), 'out');
      const r = await exportRoom(s.home, 'Launch Plan', dest);
      expect(r).toMatchObject({ messages: 2, tasks: 1, decisions: 1, files: 1, missing_files: [] });
      const msgs = lines(join(dest, 'messages.jsonl'));
      expect(msgs.map((m) => m.body)).toEqual(['Ünïcode ✓ and a "quote"', 'agent here']);
      expect(msgs[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(Array.isArray(msgs[0].mentions)).toBe(true);
      expect(msgs.filter((m) => 'parked' in m)).toEqual([]);
      const tasks = lines(join(dest, 'tasks.jsonl'));
      expect(tasks[0]).toMatchObject({ title: 'Ship it', status: 'todo', depends_on: [] });
      expect(lines(join(dest, 'decisions.jsonl'))[0].text).toBe('We use SQLite.');
      const files = lines(join(dest, 'files.jsonl'));
      expect(files[0].path).toBe('docs/plan.md');
      expect(files[0].versions.length).toBe(2);
      expect(readFileSync(join(dest, 'files', 'docs', 'plan.md'), 'utf8')).toBe('# v2');
      const room_ = JSON.parse(readFileSync(join(dest, 'room.json'), 'utf8'));
      expect(room_.name).toBe('Launch Plan');
      expect(readFileSync(join(dest, 'README.txt'), 'utf8')).toContain('messages.jsonl');
      const everything = readdirSync(dest).map((n) => (n === 'files' ? '' : readFileSync(join(dest, n), 'utf8'))).join('\n');
      expect(everything).not.toContain(s.ownerToken);
      expect(everything).not.toContain(a.credential);
      expect(everything).not.toContain('not exported');

      // As a tar, by id, through the command line; any tar reads it.
      const tarFile = join(tmp('ar-export-tar-'), 'room.tar');
      const cli = await run(process.execPath, [...cliArgs(), 'export', room, tarFile, '--home', s.home]);
      expect(cli.code).toBe(0);
      expect(cli.stdout).toContain('2 messages, 1 tasks, 1 decisions, 1 files');
      const listing = await run('tar', ['-tf', tarFile]);
      expect(listing.code).toBe(0);
      expect(listing.stdout).toContain('room/messages.jsonl');
      expect(listing.stdout).toContain('room/files/docs/plan.md');
      const x = tmp('ar-export-x-');
      expect((await run('tar', ['-xf', tarFile, '-C', x])).code).toBe(0);
      expect(readFileSync(join(x, 'room', 'files', 'docs', 'plan.md'), 'utf8')).toBe('# v2');
      expect(lines(join(x, 'room', 'messages.jsonl')).length).toBe(2);

      await expect(exportRoom(s.home, 'No Such Room', join(tmp('ar-x-'), 'o'))).rejects.toThrow(/no room "No Such Room"/);
      await expect(exportRoom(s.home, room, join(s.home, 'inside'))).rejects.toThrow(/inside the home/);
    } finally {
      await s.stop();
    }
  }, 60_000);

  it('automatic snapshots follow settings.json (interval, keep), and the routes are the primary owner\'s', async () => {
    const home = tmp('ar-snap-');
    // The shortest interval the settings take (0.36 s): a snapshot at each look, and the loop looks once a second.
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ backups: { auto: true, every_hours: 0.0001, keep: 2, first_check_s: 0 } }));
    const s = await openTestApp({ home, database: 'home', background: true });
    try {
      const room = await s.room('r');
      await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'snap me' });
      // Wait for three, one more than are kept: the oldest has then been pruned.
      const made = new Set<string>();
      await waitFor(
        async () => {
          const st = await s.api('GET', '/v1/backups');
          for (const b of st.body.backups as BackupResult[]) if (b.kind === 'auto') made.add(b.path);
          return made.size >= 3;
        },
        'three automatic backups',
        40_000,
      );
      const st = await s.api('GET', '/v1/backups');
      expect(st.status).toBe(200);
      const autos = (st.body.backups as BackupResult[]).filter((b) => b.kind === 'auto');
      expect(autos.length).toBeLessThanOrEqual(2);
      expect(st.body.settings).toMatchObject({ auto: true, keep: 2 });
      expect(st.body.last.kind).toBe('auto');
      expect(existsSync(join(autos[0]!.path, 'rooms.db'))).toBe(true);
      // A manual backup is never pruned.
      const m = await s.api('POST', '/v1/backups', {});
      expect(m.status).toBe(201);
      expect(m.body.kind).toBe('manual');

      // Another owner may neither see nor take backups; bad input is a structured error.
      const other = await s.owner('Bob');
      const denied = await s.api('GET', '/v1/backups', undefined, other.token);
      expect(denied.status).toBe(403);
      expect(denied.body.error.error_id).toMatch(/^err_/);
      expect((await s.api('POST', '/v1/backups', {}, other.token)).status).toBe(403);
      const rel = await s.api('POST', '/v1/backups', { dest: 'relative/path' });
      expect(rel.status).toBe(400);
      expect(rel.body.error.error_id).toMatch(/^err_/);
      const inside = await s.api('POST', '/v1/backups', { dest: join(home, 'blobs', 'x') });
      expect(inside.status).toBe(400);
      const busyDest = join(tmp('ar-snap-dest-'), 'full');
      mkdirSync(busyDest);
      writeFileSync(join(busyDest, 'keep.txt'), 'mine');
      const taken = await s.api('POST', '/v1/backups', { dest: busyDest });
      expect(taken.status).toBe(409);
      expect(readFileSync(join(busyDest, 'keep.txt'), 'utf8')).toBe('mine');
    } finally {
      await s.stop();
    }
    // After the stop, the snapshot folder holds no half-made backup.
    expect(readdirSync(join(home, 'backups')).filter((n) => n.includes('.partial-'))).toEqual([]);
  }, 60_000);

  it('AGENT_ROOMS_AUTO_BACKUP=off turns snapshots off whatever the file says', async () => {
    const { readSnapshotSettings } = await import('../../src-main/core/backup/settings.js');
    const home = tmp('ar-snap-off-');
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ backups: { auto: true, every_hours: 6, keep: 3 } }));
    expect(readSnapshotSettings(home, {})).toMatchObject({ auto: true, every_hours: 6, keep: 3 });
    expect(readSnapshotSettings(home, { AGENT_ROOMS_AUTO_BACKUP: 'off' }).auto).toBe(false);
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ backups: { every_hours: -1, keep: 'many' } }));
    expect(readSnapshotSettings(home, {})).toMatchObject({ auto: true, every_hours: 24, keep: 7 });
  });
});
