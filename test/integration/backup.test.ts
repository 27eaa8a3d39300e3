import { describe, it, expect, afterAll } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { ok } from '../helpers/server.js';
import { openTestApp, type TestApp } from '../helpers/app.js';
import { waitFor, tempDirs } from '../helpers/core.js';
import { restoreHome } from '../../src-main/core/backup/restore.js';
import type { BackupResult } from '../../src-main/core/backup/backup.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * A backup is the core's own work (backup/service.ts through its own connection): it runs in
 * process on a home's database file (openTestApp `database: 'home'`), and each restored home is
 * opened the same way. Restore next to a running server, and a restored home served by a real
 * `serve`, are in durability-home.test.ts.
 */
describe('online backup and restore', () => {
  const { tmp, removeAll } = tempDirs();
  afterAll(removeAll);

  // Eight backups, half to each destination: each one runs while the writers write (PER_BACKUP
  // below), so a backup that copied a torn or partial state fails its verify or its restore. More
  // of them repeat the same check on a bigger database (twenty took up to 300 s on a busy machine).
  const BACKUPS = 8;
  it(`${BACKUPS} consecutive backups taken while 8 writers run all verify, and each restores to a home that serves every write acknowledged before it`, async () => {
    const s = await openTestApp({ database: 'home', home: tmp('ar-bk-live-') });
    const roomId = await s.room('busy');
    const a = await s.agent('writer');
    await s.join(roomId, a.plate);
    const mcp = await s.connect(a.credential);

    type Ack = { kind: 'message'; id: string; body: string; at: number } | { kind: 'file'; path: string; sha256: string; version: number; at: number };
    const acks: Ack[] = [];
    let stop = false;
    const backups: Array<{ result: BackupResult; acked: Ack[] }> = [];
    // The work is bounded by the backups, not by the clock: each writer writes at most PER_BACKUP
    // times more once a backup is taken, so a slow (busy) machine does the same work as a fast one
    // and every backup still runs while the writers write.
    const PER_BACKUP = 4;
    const turn = async (i: number) => {
      while (!stop && i >= (backups.length + 2) * PER_BACKUP) await new Promise((res) => setTimeout(res, 10));
      return !stop;
    };
    const messageWriter = async (w: number) => {
      for (let i = 0; await turn(i); i++) {
        const body = `w${w} m${i} ${'x'.repeat(i % 7 === 0 ? 2000 : 40)}`;
        const r = await s.api('POST', `/v1/rooms/${roomId}/messages`, { body });
        expect(r.status).toBe(201);
        acks.push({ kind: 'message', id: r.body.message_id, body, at: Date.now() });
      }
    };
    const fileWriter = async (w: number) => {
      for (let i = 0; await turn(i); i++) {
        const path = `w${w}/f${i % 5}.txt`;
        const content = `writer ${w} version ${i} ${'y'.repeat(500 + i)}`;
        const r = await ok(mcp, 'write_file', { room: roomId, path, content });
        acks.push({ kind: 'file', path, sha256: sha(content), version: r.version, at: Date.now() });
        // Every version is a blob of its own: a steady trickle keeps the blob count (and the test) bounded.
        await new Promise((res) => setTimeout(res, 150));
      }
    };
    const writers = [0, 1, 2, 3, 4, 5].map(messageWriter).concat([6, 7].map(fileWriter));

    const outside = tmp('ar-bk-dest-');
    try {
      await waitFor(() => acks.length >= 40, '40 acknowledged writes');
      for (let i = 0; i < BACKUPS; i++) {
        const acked = acks.slice();
        // Half go to <home>/backups (the default), half to a folder of the caller's choosing.
        const r = await s.api('POST', '/v1/backups', i % 2 ? { dest: join(outside, `b${i}`) } : {});
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        const result = r.body as BackupResult;
        expect(result.verified).toEqual({ integrity_check: 'ok', blobs_sha256: result.blobs });
        expect(existsSync(join(result.path, 'manifest.json'))).toBe(true);
        // A backup is one self-contained file: no WAL beside it.
        expect(readdirSync(result.path).filter((n) => n.startsWith('rooms.db'))).toEqual(['rooms.db']);
        backups.push({ result, acked });
      }
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    // The writers kept writing while the backups were taken: the last backup saw more acknowledged writes than the first.
    expect(backups.at(-1)!.acked.length).toBeGreaterThan(backups[0]!.acked.length);
    const status = await s.api('GET', '/v1/backups');
    expect(status.body.last.path).toBe(backups.at(-1)!.result.path);
    expect(status.body.backups.filter((b: BackupResult) => b.kind === 'manual').length).toBe(BACKUPS / 2);
    await s.stop();

    for (const [n, b] of backups.entries()) {
      const home = join(tmp('ar-bk-restore-'), 'home');
      const r = await restoreHome(b.result.path, home);
      expect(r.previous).toBeNull();
      const restored: TestApp = await openTestApp({ database: 'home', home });
      try {
        const ids = new Set((restored.running.core.db.prepare('SELECT id FROM messages WHERE room_id = ?').all(roomId) as Array<{ id: string }>).map((m) => m.id));
        const files = new Map<string, string>();
        const versions = restored.running.core.db
          .prepare("SELECT f.path, v.version, v.sha256 FROM files f JOIN file_versions v ON v.file_id = f.id WHERE f.room_id = ? AND v.status = 'ready'")
          .all(roomId) as Array<{ path: string; version: number; sha256: string }>;
        for (const v of versions) files.set(`${v.path}#${v.version}`, v.sha256);
        for (const ack of b.acked) {
          if (ack.kind === 'message') expect(ids.has(ack.id), `backup ${n}: message ${ack.id}`).toBe(true);
          else expect(files.get(`${ack.path}#${ack.version}`), `backup ${n}: ${ack.path} v${ack.version}`).toBe(ack.sha256);
        }
        // Served by the restored core's /v1 dispatch: the newest page of history and a file's bytes.
        const page = await restored.api('GET', `/v1/rooms/${roomId}/messages?limit=5`);
        expect(page.status).toBe(200);
        expect(page.body.messages.length).toBeGreaterThan(0);
        const lastFile = [...b.acked].reverse().find((x) => x.kind === 'file');
        if (lastFile?.kind === 'file' && n % 5 === 0) {
          // The agent's credential came back with the home: it reads the file's bytes over MCP.
          const fm = await ok(await restored.connect(a.credential), 'read_file', { room: roomId, path: lastFile.path, version: lastFile.version });
          expect(sha(fm.content)).toBe(lastFile.sha256);
        }
      } finally {
        await restored.stop();
      }
    }
  }, 300_000);
});
