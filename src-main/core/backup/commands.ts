import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { acquireHomeLock, inUseError, liveLockHolder } from '../db/lock.js';
import { prepareHome } from '../db/home.js';
import { classifyDbError } from '../db/home-errors.js';
import { backupHome, defaultDest, type BackupProgress, type BackupResult } from './backup.js';
import { restoreHome } from './restore.js';
import { exportRoom } from './export.js';

/**
 * The command-line side of backup, restore and export (cli.ts only dispatches here).
 *
 * `backup` goes through the running server when one holds the home (POST /v1/backups with the
 * owner token: its own connection makes the copy, so nothing waits and nothing is missed);
 * on a stopped home it takes the home's lock itself, so no server starts meanwhile.
 */
type Out = (line: string) => void;

function progressPrinter(err: Out): (p: { phase: string; done: number; total: number }) => void {
  let last = 0;
  let lastPhase = '';
  return (p) => {
    const now = Date.now();
    if (p.phase === lastPhase && now - last < 1000 && p.done !== p.total) return;
    last = now;
    lastPhase = p.phase;
    if (p.phase === 'done') return;
    const pct = p.total > 0 ? Math.floor((p.done / p.total) * 100) : 100;
    err(`${p.phase}: ${p.phase === 'database' ? `${pct}%` : `${p.done}/${p.total}`}`);
  };
}

function mb(n: number): string {
  return `${(n / 1048576).toFixed(1)} MB`;
}

function describe(r: BackupResult): string {
  return `backup verified: ${r.path}\n  database ${mb(r.db_bytes)} (integrity_check ok), ${r.blobs} blobs ${mb(r.blob_bytes)} (sha256 ok), ${r.counts.messages ?? 0} messages, ${r.counts.tasks ?? 0} tasks, ${r.duration_ms} ms via ${r.source === 'server' ? 'the running server' : 'the stopped home'}`;
}

async function backupThroughServer(home: string, url: string, dest: string | undefined, err: Out): Promise<BackupResult> {
  const token = readFileSync(join(home, 'owner-token'), 'utf8').trim();
  const res = await fetch(`${url}/v1/backups`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/x-ndjson' },
    body: JSON.stringify(dest ? { dest } : {}),
  });
  if (!res.ok || !res.body) {
    const body = (await res.json().catch(() => ({}))) as { error?: { message?: string; error_id?: string } };
    throw new Error(`the server at ${url} refused the backup (${res.status}): ${body.error?.message ?? res.statusText}${body.error?.error_id ? ` [${body.error.error_id}]` : ''}`);
  }
  const show = progressPrinter(err);
  let buf = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      const m = JSON.parse(line) as { progress?: BackupProgress; result?: BackupResult; error?: { message: string; error_id?: string } };
      if (m.progress) show(m.progress);
      if (m.result) return m.result;
      if (m.error) throw new Error(`backup failed: ${m.error.message}${m.error.error_id ? ` [${m.error.error_id}]` : ''}`);
    }
  }
  throw new Error(`the server at ${url} ended the backup without a result; check its log`);
}

export async function backupCommand(homeArg: string, destArg: string | undefined, out: Out, err: Out): Promise<BackupResult> {
  const home = resolve(homeArg);
  const dest = destArg ? resolve(destArg) : undefined;
  if (!existsSync(join(home, 'rooms.db'))) throw new Error(`no agent-rooms home at ${home} (no rooms.db); give it with --home DIR`);
  const holder = liveLockHolder(home);
  let result: BackupResult;
  if (holder?.kind === 'serve' && holder.url) {
    err(`backing up through the running server ${holder.url} (pid ${holder.pid})`);
    result = await backupThroughServer(home, holder.url, dest, err);
  } else {
    if (holder) throw inUseError(home, holder);
    prepareHome(home);
    const lock = acquireHomeLock(home, 'backup');
    try {
      const file = join(home, 'rooms.db');
      try {
        result = await backupHome({ home, dest: dest ?? defaultDest(home, 'manual'), kind: 'manual', source: 'offline', onProgress: progressPrinter(err) });
      } catch (e) {
        throw classifyDbError(e, file, home) ?? e;
      }
    } finally {
      lock.release();
    }
  }
  out(describe(result));
  return result;
}

export async function restoreCommand(src: string | undefined, homeArg: string, out: Out, err: Out): Promise<void> {
  if (!src) throw new Error('usage: agent-rooms restore BACKUP_FOLDER [--home DIR]');
  const r = await restoreHome(src, homeArg, progressPrinter(err));
  out(`restored ${r.from} into ${r.home} (${r.blobs} blobs verified)`);
  if (r.previous) out(`the previous home is kept at ${r.previous}; delete it once the restored home works`);
}

export async function exportCommand(room: string | undefined, dest: string | undefined, homeArg: string, out: Out): Promise<void> {
  if (!room) throw new Error('usage: agent-rooms export ROOM [DEST] [--home DIR]   (ROOM: a room id or exact name; DEST ending in .tar writes one archive)');
  const r = await exportRoom(homeArg, room, dest);
  out(`exported room "${r.room.name}" (${r.room.id}) to ${r.path}: ${r.messages} messages, ${r.tasks} tasks, ${r.decisions} decisions, ${r.files} files`);
  if (r.missing_files.length) out(`warning: ${r.missing_files.length} files had no bytes in the home: ${r.missing_files.slice(0, 5).join(', ')}`);
}

/** `agent-rooms backup|restore|export …`: positional arguments and `--home DIR` (cli.ts dispatches here). */
export async function runBackupCommand(cmd: 'backup' | 'restore' | 'export', argv: string[], defaultHomeDir: string): Promise<void> {
  const positional: string[] = [];
  let home = defaultHomeDir;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--home') {
      const v = argv[++i];
      if (v === undefined) throw new Error('--home needs a value');
      home = v;
    } else if (a.startsWith('--home=')) home = a.slice('--home='.length);
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else positional.push(a);
  }
  const max = cmd === 'restore' ? 1 : cmd === 'backup' ? 1 : 2;
  if (positional.length > max) throw new Error(`too many arguments for ${cmd}: ${positional.join(' ')}`);
  const out: Out = (l) => process.stdout.write(l + '\n');
  const err: Out = (l) => process.stderr.write(`agent-rooms ${cmd}: ${l}\n`);
  if (cmd === 'backup') await backupCommand(home, positional[0], out, err);
  else if (cmd === 'restore') await restoreCommand(positional[0], home, out, err);
  else await exportCommand(positional[0], positional[1], home, out);
}
