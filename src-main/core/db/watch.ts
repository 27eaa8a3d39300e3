import { transactionSerial, type Db } from './open.js';

/**
 * Small reads of the store that a call may remember until what they read changes
 * (docs/performance.md, "Remembered checks"): whether a credential is revoked, whether an agent
 * is in a room, an owner's or agent's slug, whether an agent has a runner. Every tool call or
 * message makes some of them, and on this machine each read costs microseconds of locking and
 * b-tree descent, while the answers change a few times a day.
 *
 * A memo is a map whose entries hold while a counter has not moved. Temporary triggers on this
 * connection move the counter whenever a row the memo depends on is inserted, deleted, or has a
 * column it reads changed, whichever code writes it. A change that is rolled back moves it too,
 * which only costs a fresh read. A value read inside a transaction that has itself changed such a
 * row is not remembered (it might yet be rolled back). Only this process writes the store while it
 * serves: one server per home (db/lock.ts).
 */
export interface WatchedChange {
  table: string;
  /** 'INSERT', 'DELETE', or 'UPDATE OF col, …' (only the columns the memo reads). */
  on: string;
}

export interface Memo<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
}

interface MemoState {
  /** Moves on every watched change. */
  version: number;
  /** The transaction serial (db/open.ts) of the last watched change made inside a transaction. */
  changedIn: number;
  /** The version `values` were read at. */
  valuesAt: number;
  values: Map<string, unknown>;
  memo: Memo<unknown>;
}

const NAME = /^[a-z_]+$/;
const MAX_KEYS = 10_000;
const definitions = new Map<string, readonly WatchedChange[]>();
const states = new WeakMap<Db, Map<string, MemoState>>();

/** The remembered value of `key`, or what `read` returns, remembered (use null for "none"). */
export function recall<V>(memo: Memo<V> | undefined, key: string, read: () => V): V {
  const hit = memo?.get(key);
  if (hit !== undefined) return hit;
  const value = read();
  memo?.set(key, value);
  return value;
}

/**
 * Declares a memo (once, where its reads live) and returns how to reach it on a connection.
 * Undefined there while its triggers cannot be created yet (a transaction is open, and a rollback
 * would drop them with it): the caller then reads the store.
 */
export function defineMemo<V>(name: string, changes: readonly WatchedChange[]): (db: Db) => Memo<V> | undefined {
  if (!NAME.test(name)) throw new Error(`memo name ${name} must be lowercase letters`);
  for (const c of changes) {
    if (!NAME.test(c.table) || !/^(INSERT|DELETE|UPDATE OF [a-z_, ]+)$/.test(c.on)) throw new Error(`bad watched change ${c.table} ${c.on}`);
  }
  definitions.set(name, changes);
  return (db) => stateOf(db, name)?.memo as Memo<V> | undefined;
}

/** Creates every declared memo's triggers on this connection now (the server, once its store is open). */
export function installMemos(db: Db): void {
  for (const name of definitions.keys()) stateOf(db, name);
}

function stateOf(db: Db, name: string): MemoState | undefined {
  let m = states.get(db);
  const known = m?.get(name);
  if (known) return known;
  if (db.inTransaction || !db.open) return undefined;
  const state = { version: 0, changedIn: -1, valuesAt: 0, values: new Map() } as MemoState;
  state.memo = memo(db, state);
  const fn = `ar_memo_${name}`;
  db.function(fn, { deterministic: false }, () => {
    state.version++;
    if (db.inTransaction) state.changedIn = transactionSerial(db);
    return null;
  });
  definitions.get(name)!.forEach((c, i) => {
    db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS ${fn}_${i} AFTER ${c.on} ON main.${c.table} BEGIN SELECT ${fn}(); END`);
  });
  if (!m) states.set(db, (m = new Map()));
  m.set(name, state);
  return state;
}

function memo(db: Db, state: MemoState): Memo<unknown> {
  const fresh = () => {
    if (state.valuesAt !== state.version) {
      state.values.clear();
      state.valuesAt = state.version;
    }
    return state.values;
  };
  return {
    get: (key) => fresh().get(key),
    set: (key, value) => {
      // Read in a transaction that changed a watched row: it may yet be rolled back.
      if (db.inTransaction && state.changedIn === transactionSerial(db)) return;
      const values = fresh();
      if (values.size >= MAX_KEYS) values.clear();
      values.set(key, value);
    },
  };
}
