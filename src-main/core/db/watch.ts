import type { Db } from './open.js';

/**
 * Checks of the store that a call may remember until what they read changes
 * (docs/performance.md, "Remembered checks"): whether a credential is revoked, whether an agent
 * is in a room. Every tool call asks both, and each read outside a transaction costs tens of
 * microseconds of file locking on this machine, while the answers change a few times a day.
 *
 * A watch is a counter that temporary triggers on this connection move whenever a row that
 * decides the check is inserted, changed or deleted, whichever code writes it. A change that is
 * rolled back moves it too, which only costs a fresh read. Only this process writes these tables
 * while it serves: one server per home (db/lock.ts).
 */
export interface WatchedChange {
  table: string;
  /** 'INSERT', 'DELETE', or 'UPDATE OF col, …' (only the columns the check reads). */
  on: string;
}

/** Keys whose check passed, each valid while no watched row has changed since. */
export interface Remembered {
  has(key: string): boolean;
  add(key: string): void;
}

const memos = new WeakMap<Db, Map<string, Remembered>>();
const NAME = /^[a-z_]+$/;
const MAX_KEYS = 10_000;

/**
 * The remembered checks called `name` on this connection, its triggers created on first use.
 * Undefined while a transaction is open (a rollback would drop the triggers with it): the caller
 * reads the store.
 */
export function rememberedOf(db: Db, name: string, changes: readonly WatchedChange[]): Remembered | undefined {
  let m = memos.get(db);
  const known = m?.get(name);
  if (known) return known;
  if (db.inTransaction || !db.open) return undefined;
  if (!NAME.test(name)) throw new Error(`watch name ${name} must be lowercase letters`);
  let version = 0;
  const fn = `ar_watch_${name}`;
  db.function(fn, { deterministic: false }, () => {
    version++;
    return null;
  });
  changes.forEach((c, i) => {
    if (!NAME.test(c.table) || !/^(INSERT|DELETE|UPDATE OF [a-z_, ]+)$/.test(c.on)) throw new Error(`bad watched change ${c.table} ${c.on}`);
    db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS ${fn}_${i} AFTER ${c.on} ON main.${c.table} BEGIN SELECT ${fn}(); END`);
  });
  const passed = new Map<string, number>();
  const r: Remembered = {
    has: (key) => passed.get(key) === version,
    add: (key) => {
      if (passed.size >= MAX_KEYS) passed.clear();
      passed.set(key, version);
    },
  };
  if (!m) memos.set(db, (m = new Map()));
  m.set(name, r);
  return r;
}
