import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Blob folders a backup is copying from (backup/backup.ts): while pinned, no blob is removed
 * there (the backup's database copy may still reference it). A removal skipped this way
 * leaves an unreferenced blob that the next start-up sweep removes.
 */
const pins = new Map<string, number>();

export function pinBlobs(home: string): () => void {
  const root = resolve(home, 'blobs');
  pins.set(root, (pins.get(root) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const n = (pins.get(root) ?? 1) - 1;
    if (n > 0) pins.set(root, n);
    else pins.delete(root);
  };
}

function isPinned(root: string): boolean {
  return pins.has(resolve(root));
}

/**
 * File bytes under `<home>/blobs/`, one file per content, named by its sha256
 * (`blobs/ab/abcdef…`), so identical versions share one blob. A blob is written to a temp
 * file in `blobs/tmp/`, fsynced and renamed into place: a crash never leaves a half file
 * under a sha256 name. Presigned uploads wait in `blobs/tmp/` until they are released.
 */
export class BlobStore {
  readonly root: string;
  readonly tmpDir: string;

  constructor(home: string) {
    this.root = join(home, 'blobs');
    this.tmpDir = join(this.root, 'tmp');
    mkdirSync(this.tmpDir, { recursive: true, mode: 0o700 });
  }

  pathOf(sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error('not a sha256');
    return join(this.root, sha256.slice(0, 2), sha256);
  }

  has(sha256: string): boolean {
    return existsSync(this.pathOf(sha256));
  }

  /** A fresh temp name for bytes on their way in. */
  tempPath(label: string): string {
    return join(this.tmpDir, `${label}.${randomBytes(6).toString('hex')}.part`);
  }

  /** Where a presigned upload's received bytes wait for complete_file_upload. */
  uploadPath(fileId: string, version: number): string {
    return join(this.tmpDir, `${fileId}.v${version}.upload`);
  }

  /** Stores small bytes durably (synchronous: callable inside a write transaction). */
  writeSync(sha256: string, bytes: Buffer): void {
    const dest = this.pathOf(sha256);
    if (existsSync(dest)) return;
    const tmp = this.tempPath('inline');
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.moveIntoPlace(tmp, dest);
  }

  /** Moves an already fsynced temp file to its sha256 name (dropping it if that content exists). */
  adoptSync(tmp: string, sha256: string): void {
    const dest = this.pathOf(sha256);
    if (existsSync(dest)) {
      rmSync(tmp, { force: true });
      return;
    }
    this.moveIntoPlace(tmp, dest);
  }

  private moveIntoPlace(tmp: string, dest: string) {
    const dir = join(dest, '..');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    renameSync(tmp, dest);
    // The rename itself is durable only once the folder is synced.
    try {
      const dfd = openSync(dir, 'r');
      try {
        fsyncSync(dfd);
      } finally {
        closeSync(dfd);
      }
    } catch {
      // some filesystems refuse to fsync a folder; the rename is still atomic
    }
  }

  removeSync(sha256: string): void {
    if (isPinned(this.root)) return;
    try {
      unlinkSync(this.pathOf(sha256));
    } catch {
      // already gone
    }
  }

  size(sha256: string): number {
    return statSync(this.pathOf(sha256)).size;
  }

  /**
   * Start-up housekeeping: drops temp files of interrupted writes, uploads nobody waits for,
   * and blobs no version refers to (left by a crash between the blob and its row). It yields
   * to the event loop between small batches (a home with 50,000 blobs once held requests for
   * 300 ms); blobs younger than `olderThanMs` are never touched, so a write racing the sweep is safe.
   * `alive` stops it early (the core stopped meanwhile).
   */
  async sweep(
    isReferenced: (sha256: string) => boolean,
    isPendingUpload: (name: string) => boolean,
    olderThanMs: number,
    alive: () => boolean = () => true,
  ): Promise<number> {
    const BATCH = 200;
    const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
    let removed = 0;
    const cutoff = Date.now() - olderThanMs;
    let n = 0;
    for (const name of readdirSync(this.tmpDir)) {
      if (++n % BATCH === 0) {
        await tick();
        if (!alive()) return removed;
      }
      const p = join(this.tmpDir, name);
      try {
        if (name.endsWith('.upload') && isPendingUpload(name)) continue;
        if (statSync(p).mtimeMs > cutoff) continue;
        unlinkSync(p);
        removed++;
      } catch {
        // raced with a writer; it will be looked at next start
      }
    }
    if (isPinned(this.root)) return removed;
    for (const dir of readdirSync(this.root)) {
      if (!/^[0-9a-f]{2}$/.test(dir)) continue;
      await tick();
      if (!alive()) return removed;
      let names: string[];
      try {
        names = readdirSync(join(this.root, dir));
      } catch {
        continue;
      }
      for (const name of names) {
        if (++n % BATCH === 0) {
          await tick();
          if (!alive()) return removed;
        }
        if (!/^[0-9a-f]{64}$/.test(name) || isReferenced(name)) continue;
        const p = join(this.root, dir, name);
        try {
          if (statSync(p).mtimeMs > cutoff) continue;
          unlinkSync(p);
          removed++;
        } catch {
          // already gone
        }
      }
    }
    return removed;
  }
}
