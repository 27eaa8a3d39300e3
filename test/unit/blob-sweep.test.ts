import { describe, it, expect } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { BlobStore } from '../../src-main/core/files/blobs.js';

describe('blob sweep at start-up', () => {
  it('yields to the event loop between batches, removes only old unreferenced blobs, and stops when asked', async () => {
    const home = mkdtempSync(join(tmpdir(), 'agent-rooms-sweep-'));
    try {
      const store = new BlobStore(home);
      const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
      const shas: string[] = [];
      for (let i = 0; i < 1000; i++) {
        const sha = createHash('sha256').update(`blob ${i}`).digest('hex');
        mkdirSync(join(home, 'blobs', sha.slice(0, 2)), { recursive: true });
        writeFileSync(store.pathOf(sha), `blob ${i}`);
        if (i !== 999) utimesSync(store.pathOf(sha), old, old); // the last one is fresh: never touched
        shas.push(sha);
      }
      const referenced = new Set(shas.filter((_, i) => i % 2 === 0));
      // A request arriving meanwhile is served before the sweep ends.
      let servedDuringSweep = false;
      let done = false;
      const sweeping = store.sweep((s) => referenced.has(s), () => false, 60 * 60 * 1000).then((n) => {
        done = true;
        return n;
      });
      setImmediate(() => (servedDuringSweep = !done));
      const removed = await sweeping;
      expect(servedDuringSweep).toBe(true);
      expect(removed).toBe(499);
      const left = readdirSync(join(home, 'blobs')).filter((d) => d !== 'tmp').flatMap((d) => readdirSync(join(home, 'blobs', d)));
      expect(new Set(left)).toEqual(new Set([...referenced, shas[999]!]));
      // alive() false: it stops at the next batch without finishing.
      for (const s of shas.filter((_, i) => i % 2 === 1 && i !== 999)) writeFileSync(store.pathOf(s), 'x');
      for (const s of shas) utimesSync(store.pathOf(s), old, old);
      const stopped = await store.sweep(() => false, () => false, 60 * 60 * 1000, () => false);
      expect(stopped).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
