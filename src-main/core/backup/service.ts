import { rmSync } from 'node:fs';
import type { Core } from '../core.js';
import { backupHome, defaultDest, listBackups, readLast, type BackupKind, type BackupProgress, type BackupResult } from './backup.js';
import { readSnapshotSettings, type SnapshotSettings } from './settings.js';
import { primaryOwner } from '../owners/store.js';
import type { StopStep } from '../util/repeat.js';

/**
 * Backups taken by the running server, on its own connection (so writes go on while it
 * copies), one at a time: a second request waits for the first to finish.
 */
export interface BackupRunState {
  chain: Promise<unknown>;
  running: { kind: BackupKind; started_at: string; progress?: BackupProgress } | null;
  lastError: { at: string; message: string } | null;
}

/** No backup running or failed yet (assembleCore builds one per core). */
export function newBackupRunState(): BackupRunState {
  return { chain: Promise.resolve(), running: null, lastError: null };
}

declare module '../core.js' {
  interface CoreServices {
    /** The backups this server takes: one at a time, the one running, the last failure. */
    backups: BackupRunState;
  }
}

function stateOf(core: Core): BackupRunState {
  return core.services.backups;
}

function announce(core: Core) {
  const owner = primaryOwner(core.db);
  core.bus.emit({ type: 'backup.changed', owners: owner ? [owner.owner_id] : [] });
}

export function backupNow(core: Core, opts: { dest?: string; kind: BackupKind; onProgress?: (p: BackupProgress) => void }): Promise<BackupResult> {
  const s = stateOf(core);
  const run = async () => {
    s.running = { kind: opts.kind, started_at: new Date().toISOString() };
    announce(core);
    try {
      const result = await backupHome({
        home: core.config.home,
        dest: opts.dest ?? defaultDest(core.config.home, opts.kind),
        kind: opts.kind,
        source: 'server',
        onProgress: (p) => {
          if (s.running) s.running.progress = p;
          opts.onProgress?.(p);
        },
      });
      s.lastError = null;
      if (opts.kind === 'auto') pruneSnapshots(core.config.home, readSnapshotSettings(core.config.home).keep);
      return result;
    } catch (err) {
      s.lastError = { at: new Date().toISOString(), message: (err as Error).message };
      throw err;
    } finally {
      s.running = null;
      announce(core);
    }
  };
  const p = s.chain.then(run, run);
  s.chain = p.catch(() => {});
  return p;
}

/** Keeps the newest `keep` automatic snapshots; manual backups are never removed. */
export function pruneSnapshots(home: string, keep: number): string[] {
  const autos = listBackups(home).filter((b) => b.kind === 'auto');
  const removed: string[] = [];
  for (const b of autos.slice(keep)) {
    rmSync(b.path, { recursive: true, force: true });
    removed.push(b.path);
  }
  return removed;
}

export interface BackupState {
  last: BackupResult | null;
  backups: BackupResult[];
  running: BackupRunState['running'];
  last_error: BackupRunState['lastError'];
  settings: SnapshotSettings;
  next_auto_at: string | null;
}

export function backupStatus(core: Core): BackupState {
  const s = stateOf(core);
  const settings = readSnapshotSettings(core.config.home);
  const backups = listBackups(core.config.home);
  const lastAuto = backups.find((b) => b.kind === 'auto');
  const next = settings.auto ? new Date(lastAuto ? Date.parse(lastAuto.created_at) + settings.every_hours * 3_600_000 : Date.now()).toISOString() : null;
  return { last: readLast(core.config.home), backups, running: s.running, last_error: s.lastError, settings, next_auto_at: next };
}

/** Starts the automatic snapshots (capabilities.ts): a look now and then, a snapshot when the newest is too old. */
export function startSnapshots(core: Core): StopStep {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const stop = async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    // A backup in progress (automatic or asked for) finishes, or fails, before the database closes.
    await stateOf(core).chain;
  };
  const settings = readSnapshotSettings(core.config.home);
  if (!settings.auto) return stop;
  const everyMs = settings.every_hours * 3_600_000;
  const look = async () => {
    if (stopped) return;
    const newest = listBackups(core.config.home).find((b) => b.kind === 'auto');
    const due = !newest || Date.now() - Date.parse(newest.created_at) >= everyMs;
    if (due) {
      try {
        const r = await backupNow(core, { kind: 'auto' });
        core.config.log(`backup: snapshot ${r.path} (${r.blobs} blobs, verified)`);
      } catch (err) {
        if (!stopped) core.config.log(`backup: automatic snapshot failed: ${(err as Error).message}`);
      }
    }
    if (!stopped) schedule(Math.max(1000, Math.min(everyMs / 4, 3_600_000)));
  };
  const schedule = (ms: number) => {
    timer = setTimeout(() => void look(), ms);
    timer.unref();
  };
  schedule(settings.first_check_s * 1000);
  return stop;
}
