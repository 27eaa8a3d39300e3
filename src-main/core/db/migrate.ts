import type Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations/index.js';

export interface Migration {
  /** 1-based; equals the `user_version` after it has run. */
  version: number;
  name: string;
  up(db: Database.Database): void;
}

/** Brings the database to the newest version, one migration per transaction. */
export function migrate(db: Database.Database, upTo = Infinity): number {
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
    db.transaction(() => {
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
    current = m.version;
  }
  return current;
}
