/**
 * Prints, as one JSON line, the consistency of an Agent Rooms home: SQLite integrity and
 * foreign keys, and whether every ready file version's blob exists and hashes to its sha256.
 * Usage: node --import tsx test/load/integrity.ts <home>
 * (or its bundle of the test run, test/helpers/cli-bundle.ts `scriptArgs`)
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export function checkHome(home: string): { integrity: string; foreignKeyViolations: number; blobs: number; badBlobs: string[] } {
  const db = new Database(join(home, 'rooms.db'), { readonly: true, fileMustExist: true });
  try {
    const integrity = String(db.pragma('integrity_check', { simple: true }));
    const foreignKeyViolations = (db.pragma('foreign_key_check') as unknown[]).length;
    const badBlobs: string[] = [];
    let blobs = 0;
    const hasFiles = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'file_versions'").get();
    if (hasFiles) {
      for (const r of db.prepare("SELECT sha256, size_bytes FROM file_versions WHERE status = 'ready'").all() as Array<{ sha256: string; size_bytes: number }>) {
        blobs++;
        const p = join(home, 'blobs', r.sha256.slice(0, 2), r.sha256);
        const bytes = existsSync(p) ? readFileSync(p) : undefined;
        if (!bytes || bytes.length !== r.size_bytes || createHash('sha256').update(bytes).digest('hex') !== r.sha256) badBlobs.push(r.sha256);
      }
    }
    return { integrity, foreignKeyViolations, blobs, badBlobs };
  } finally {
    db.close();
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  process.stdout.write(`INTEGRITY ${JSON.stringify(checkHome(process.argv[2]!))}\n`);
}
