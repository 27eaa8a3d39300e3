import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { createReadStream } from 'node:fs';
import { createHash } from 'node:crypto';

/**
 * The checks every backup passes before it is reported (and every restore source before it
 * is used): SQLite's full `integrity_check` of the copied database, then the sha256 of every
 * blob that copy references. The database work runs in a worker thread with its own
 * connection, so a server taking a backup keeps serving meanwhile.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let out;
try {
  const db = new Database(workerData.file, { fileMustExist: true, readonly: workerData.readonly });
  try {
    // A backup copy becomes one self-contained file (no -wal/-shm beside it); the server sets WAL again when it opens it.
    if (!workerData.readonly) db.pragma('journal_mode = DELETE');
    const rows = db.pragma('integrity_check(20)');
    const problems = rows.map((r) => String(Object.values(r)[0]));
    const ok = problems.length === 1 && problems[0] === 'ok';
    let blobs = [];
    let schema = 0;
    let counts = {};
    if (ok) {
      const hasFiles = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'file_versions'").get();
      if (hasFiles) blobs = db.prepare("SELECT sha256, MAX(size_bytes) AS size FROM file_versions WHERE status = 'ready' GROUP BY sha256").all();
      schema = db.pragma('user_version', { simple: true });
      for (const t of ['rooms', 'messages', 'tasks', 'files']) {
        const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(t);
        if (exists) counts[t] = db.prepare('SELECT COUNT(*) AS n FROM ' + t).get().n;
      }
    }
    out = { ok, problems: ok ? [] : problems, blobs, schema, counts };
  } finally {
    db.close();
  }
} catch (err) {
  out = { ok: false, problems: [String(err && err.message || err)], blobs: [], schema: 0, counts: {} };
}
parentPort.postMessage(out);
`;

export interface DbCheck {
  ok: boolean;
  problems: string[];
  /** Every distinct blob a ready file version of this database references. */
  blobs: Array<{ sha256: string; size: number }>;
  schema: number;
  counts: Record<string, number>;
}

/** `readonly` false: the file is a fresh backup copy, also switched to a rollback journal. */
export function checkDatabase(file: string, readonly = false): Promise<DbCheck> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, readonly } });
    let done = false;
    worker.once('message', (m: DbCheck) => {
      done = true;
      resolve(m);
    });
    worker.once('error', (err) => {
      if (!done) reject(err);
      done = true;
    });
    worker.once('exit', (code) => {
      if (!done) reject(new Error(`integrity check worker exited (${code})`));
      done = true;
    });
  });
}

/** The sha256 (hex) of a file's bytes, read as a stream. */
export function sha256OfFile(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file)
      .on('data', (d) => h.update(d))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}
