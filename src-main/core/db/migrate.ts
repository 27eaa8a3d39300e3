import type Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations/index.js';

export interface Migration {
  /** 1-based; equals the `user_version` after it has run. */
  version: number;
  name: string;
  up(db: Database.Database): void;
}

/** Brings the database to the newest version, one migration per transaction. */
export function migrate(db: Database.Database, upTo = MIGRATIONS.length): number {
  const sorted = [...MIGRATIONS].sort((a, b) => a.version - b.version);
  sorted.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration ${m.name} has version ${m.version}, expected ${i + 1}`);
  });
  let current = db.pragma('user_version', { simple: true }) as number;
  if (current > sorted.length) {
    throw new Error(`database version ${current} is newer than this build (${sorted.length}); upgrade Agent Rooms`);
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
