import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atRestKey } from '../../src-main/core/auth/keys.js';

/** One key for secrets at rest (workspace git tokens and runner env values), read once per store. */
describe('atRestKey', () => {
  it('creates the key once in <home>/keys (mode 0600) and reads it once per store', () => {
    const home = mkdtempSync(join(tmpdir(), 'ar-key-'));
    try {
      const store = {};
      const k = atRestKey(store, home);
      expect(k).toHaveLength(32);
      const file = join(home, 'keys', 'workspace-aes256.key');
      expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(k)).toBe(true);
      if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
      // The same store does not read the file again...
      writeFileSync(file, Buffer.alloc(32, 7).toString('base64'));
      expect(atRestKey(store, home).equals(k)).toBe(true);
      // ...a new store (the next core on this home, e.g. after a restore) does.
      expect(atRestKey({}, home).equals(Buffer.alloc(32, 7))).toBe(true);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
