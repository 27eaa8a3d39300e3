import type Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations/index.js';

export interface Migration {
  /** 1-based; equals the `user_version` after it has run. */
  version: number;
  name: string;
  /** `progress(done, total)` may be called by a long migration (e.g. indexing an existing home). */
  up(db: Database.Database, progress?: (done: number, total: number) => void): void;
}

/** A long migration reports at most once a second, and how long it took at the end. */
function progressPrinter(name: string, log: (line: string) => void) {
  const t0 = Date.now();
  let last = t0;
  let said = false;
  return {
    progress(done: number, total: number) {
      const now = Date.now();
      if (now - last < 1000) return;
      last = now;
      said = true;
      const pct = total ? Math.floor((done / total) * 100) : 100;
      log(`agent-rooms: migrating the database: ${name} ${pct}% (${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows)`);
    },
    end() {
      if (said || Date.now() - t0 >= 1000) log(`agent-rooms: migration ${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    },
  };
}

/** Brings the database to the newest version, one migration per transaction. */
export function migrate(db: Database.Database, upTo = Infinity, log?: (line: string) => void): number {
  const sorted = [...MIGRATIONS].sort((a, b) => a.version - b.version);
  // Versions run 1..N without gaps: a gap would let a database skip a migration that lands later.
  sorted.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration ${m.name} has version ${m.version}, expected ${i + 1}`);
  });
  const latest = sorted.length ? sorted[sorted.length - 1]!.version : 0;
  let current = db.pragma('user_version', { simple: true }) as number;
  if (current > latest) {
    throw new Error(`database version ${current} is newer than this build (${latest}); upgrade Agent Rooms`);
  }
  for (const m of sorted) {
    if (m.version <= current || m.version > upTo) continue;
    const p = log ? progressPrinter(m.name, log) : undefined;
    db.transaction(() => {
      m.up(db, p?.progress);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
    p?.end();
    current = m.version;
  }
  return current;
}
