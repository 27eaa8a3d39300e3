import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import type { Db } from './open.js';

/**
 * WAL checkpoints off the request path. SQLite's automatic checkpoint runs inside the
 * commit that crosses the threshold, copying pages and fsyncing the database file on the
 * event loop; under write load that stalls every request behind it. A worker thread with
 * its own connection checkpoints PASSIVE (never waits for, nor blocks, the writer) a few
 * times a second instead. The main connection keeps a high automatic threshold as a
 * safety net should the worker die.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // busy or closing: the next tick tries again
  }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.postMessage('stopped');
});
`;

/** Pages of WAL after which the main connection checkpoints itself (the worker normally keeps it far below). */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 20_000;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(db: Db, file: string, everyMs = 250): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  let worker: Worker | undefined;
  try {
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, everyMs } });
    worker.unref();
    worker.on('error', () => {
      // The fallback threshold keeps the WAL bounded without the worker.
      db.pragma('wal_autocheckpoint = 1000');
    });
    db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  } catch {
    worker = undefined;
  }
  return {
    async stop() {
      const w = worker;
      worker = undefined;
      if (!w) return;
      await new Promise<void>((resolve) => {
        const done = () => resolve();
        w.once('message', done);
        w.once('exit', done);
        w.once('error', done);
        w.postMessage('stop');
        setTimeout(done, 2000).unref();
      });
      await w.terminate().catch(() => {});
    },
  };
}
