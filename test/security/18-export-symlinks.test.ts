// Issue 26 F3, F4 and the backup INFO items. F3: `agent-rooms export` (and its `.partial` file, and
// backup's outputs) wrote through symbolic links planted in DEST: an arbitrary-file write as the
// user (e.g. ~/.ssh/authorized_keys). F4: outputs were 0644/0755 though they hold every message;
// backup's rooms.db 0644; restore copied symbolic links from the source as they were.
// The attack plants links where the export and the backup write, then checks the victim file.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ok } from '../helpers/server.js';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';
import { agentInRoom } from '../helpers/seat.js';
import { tempDirs } from '../helpers/core.js';
import { exportRoom } from '../../src-main/core/backup/export.js';
import { backupHome } from '../../src-main/core/backup/backup.js';
import { restoreHome } from '../../src-main/core/backup/restore.js';

const POSIX = process.platform !== 'win32';
const mode = (p: string) => statSync(p).mode & 0o777;

/** Every path under a folder, links not followed. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return lstatSync(p).isDirectory() ? [p, ...walk(p)] : [p];
  });
}

describe.runIf(POSIX)('issue 26: exports and backups never write through links, and are private', () => {
  const dirs = tempDirs();
  let s: TestApp;
  let c: AppClient;
  let room: string;
  let victimDir: string;
  let victim: string;
  const VICTIM_TEXT = 'ssh-ed25519 AAAA the-users-own-key\n';

  beforeAll(async () => {
    s = await openTestApp({ database: 'home', rateLimit: { perSecond: 0, burst: 0 } });
    ({ room, c } = await agentInRoom(s, 'Writer', 'Exported'));
    await ok(c, 'send_message', { room, body: 'a message every export holds' });
    await ok(c, 'write_file', { room, path: 'notes/plan.md', content: 'the plan' });
    victimDir = dirs.tmp('ar-victim-');
    victim = join(victimDir, 'authorized_keys');
    writeFileSync(victim, VICTIM_TEXT);
  });
  afterAll(async () => {
    await s?.stop();
    dirs.removeAll();
  });

  const victimUntouched = () => {
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
    expect(readdirSync(victimDir)).toEqual(['authorized_keys']);
  };

  it('F3: a DEST that is a link (to a file or to a folder) is refused, the target untouched', async () => {
    const out = dirs.tmp('ar-out-');
    symlinkSync(victim, join(out, 'export.tar'));
    await expect(exportRoom(s.home, room, join(out, 'export.tar'))).rejects.toThrow(/symbolic link/);
    symlinkSync(victimDir, join(out, 'export-folder'));
    await expect(exportRoom(s.home, room, join(out, 'export-folder'))).rejects.toThrow(/symbolic link/);
    victimUntouched();
  });

  it('F3: links planted at the old partial names are never written through; the export is built privately', async () => {
    const out = dirs.tmp('ar-out-');
    const dest = join(out, 'room.tar');
    // The old code wrote DEST.partial, then DEST.partial-<hex> folders: plant links there.
    symlinkSync(victim, `${dest}.partial`);
    for (const hex of ['00000000', 'ffffffff']) symlinkSync(victimDir, `${dest}.partial-${hex}`);
    const r = await exportRoom(s.home, room, dest);
    expect(r.messages).toBe(1);
    victimUntouched();
    expect(lstatSync(dest).isFile()).toBe(true);
    // Nothing left beside it but the planted links (the private staging folder is gone).
    expect(readdirSync(out).sort()).toEqual(['room.tar', 'room.tar.partial', 'room.tar.partial-00000000', 'room.tar.partial-ffffffff']);
  });

  it('F4: an export folder is 0700 with files 0600; a tar is 0600 and its entries 0600/0700', async () => {
    const out = dirs.tmp('ar-out-');
    const folder = join(out, 'as-folder');
    await exportRoom(s.home, room, folder);
    expect(mode(folder)).toBe(0o700);
    const all = walk(folder);
    expect(all.some((p) => p.endsWith('plan.md'))).toBe(true);
    for (const p of all) expect(mode(p), p).toBe(statSync(p).isDirectory() ? 0o700 : 0o600);
    const tar = join(out, 'as.tar');
    await exportRoom(s.home, room, tar);
    expect(mode(tar)).toBe(0o600);
    const bytes = readFileSync(tar);
    for (let off = 0; off + 512 <= bytes.length; off += 512) {
      const h = bytes.subarray(off, off + 512);
      if (h.subarray(257, 262).toString('ascii') !== 'ustar') continue;
      const type = String.fromCharCode(h[156]!);
      const m = parseInt(h.subarray(100, 107).toString('ascii'), 8);
      if (type === '5') expect(m).toBe(0o700);
      if (type === '0') expect(m).toBe(0o600);
    }
  });

  it('backup: a DEST link is refused; rooms.db is 0600; links in the home are not copied', async () => {
    const out = dirs.tmp('ar-bk-');
    symlinkSync(victimDir, join(out, 'linked'));
    await expect(backupHome({ home: s.home, dest: join(out, 'linked'), kind: 'manual', source: 'server' })).rejects.toThrow(/symbolic link/);
    victimUntouched();
    symlinkSync(victim, join(s.home, 'planted-link'));
    const r = await backupHome({ home: s.home, dest: join(out, 'bk'), kind: 'manual', source: 'server' });
    expect(mode(join(r.path, 'rooms.db'))).toBe(0o600);
    expect(mode(r.path)).toBe(0o700);
    expect(existsSync(join(r.path, 'planted-link'))).toBe(false);
    for (const p of walk(r.path)) expect(lstatSync(p).isSymbolicLink(), p).toBe(false);
  });

  it('restore: links in the backup folder that point outside are dropped, never restored', async () => {
    const out = dirs.tmp('ar-rs-');
    const r = await backupHome({ home: s.home, dest: join(out, 'bk'), kind: 'manual', source: 'server' });
    symlinkSync(victim, join(r.path, 'evil-link'));
    mkdirSync(join(r.path, 'extra'), { recursive: true });
    symlinkSync(victimDir, join(r.path, 'extra', 'outside'));
    writeFileSync(join(r.path, 'extra', 'real.txt'), 'kept');
    const home = join(out, 'restored');
    await restoreHome(r.path, home);
    expect(existsSync(join(home, 'rooms.db'))).toBe(true);
    expect(readFileSync(join(home, 'extra', 'real.txt'), 'utf8')).toBe('kept');
    for (const p of walk(home)) expect(lstatSync(p).isSymbolicLink(), p).toBe(false);
    victimUntouched();
  });
});
