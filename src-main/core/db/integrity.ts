import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { statSync } from 'node:fs';
import type { Db } from './open.js';
import { HomeError, restoreHint } from './home-errors.js';

/**
 * `PRAGMA quick_check` at start. A small database is checked before the server listens; a
 * large one (over QUICK_CHECK_SYNC_MAX_BYTES) in a worker thread after the ready line, while
 * start.ts holds every write until it passed. Either way a failure stops the server.
 */
export const QUICK_CHECK_SYNC_MAX_BYTES = 64 * 1024 * 1024;

/** The file size up to which the check runs before listening (env override for tests and operators). */
export function syncCheckLimit(): number {
  const env = process.env.AGENT_ROOMS_QUICK_CHECK_SYNC_BYTES;
  return env !== undefined && /^\d+$/.test(env) ? Number(env) : QUICK_CHECK_SYNC_MAX_BYTES;
}

export function dbFileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function failure(file: string, home: string, problems: string[]): HomeError {
  const shown = problems.slice(0, 3).join('; ') + (problems.length > 3 ? `; and ${problems.length - 3} more` : '');
  return new HomeError(
    'DATABASE_CORRUPT',
    `the database ${file} is damaged: PRAGMA quick_check found: ${shown}. The server stopped before writing to it. Fix: ${restoreHint(home)}.`,
    { path: file },
  );
}

function rowsToProblems(rows: unknown[]): string[] {
  const lines = rows.map((r) => String(Object.values(r as Record<string, unknown>)[0]));
  return lines.length === 1 && lines[0] === 'ok' ? [] : lines;
}

/** Runs quick_check on the open connection; throws HomeError DATABASE_CORRUPT when it fails. */
export function quickCheckSync(db: Db, file: string, home: string): void {
  let problems: string[];
  try {
    problems = rowsToProblems(db.pragma('quick_check(20)') as unknown[]);
  } catch (err) {
    problems = [(err as Error).message];
  }
  if (problems.length) throw failure(file, home, problems);
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let result;
try {
  const db = new Database(workerData.file, { fileMustExist: true, readonly: true });
  try {
    result = { rows: db.pragma('quick_check(20)') };
  } finally {
    db.close();
  }
} catch (err) {
  result = { error: String(err && err.message || err) };
}
parentPort.postMessage(result);
`;

/** quick_check on its own connection in a worker thread (the event loop keeps serving reads). */
export function quickCheckInWorker(file: string, home: string): Promise<void> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  return new Promise<void>((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file } });
    let settled = false;
    worker.once('message', (m: { rows?: unknown[]; error?: string }) => {
      settled = true;
      const problems = m.error ? [m.error] : rowsToProblems(m.rows ?? []);
      if (problems.length) reject(failure(file, home, problems));
      else resolve();
    });
    worker.once('error', (err) => {
      if (!settled) reject(failure(file, home, [err.message]));
      settled = true;
    });
    worker.once('exit', () => {
      if (!settled) reject(failure(file, home, ['the check stopped without an answer']));
      settled = true;
    });
  });
}
