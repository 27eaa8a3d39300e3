import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every refusal code a record's act table can give (`no('<code>', …)` in a capability's
 * rules.ts, util/acts.ts) is a stable snake_case string and is listed in docs/contract.md
 * "Allowed actions", where the window's authors look up what it means.
 */
const core = join(__dirname, '../../src-main/core');

function codes(): Map<string, string> {
  const found = new Map<string, string>();
  for (const dir of readdirSync(core)) {
    const f = join(core, dir, 'rules.ts');
    if (!existsSync(f)) continue;
    for (const m of readFileSync(f, 'utf8').matchAll(/\bno\(\s*'([^']*)'/g)) found.set(m[1]!, `${dir}/rules.ts`);
  }
  return found;
}

describe('refusal codes', () => {
  const found = codes();
  it('the rules give codes (the scan reads them)', () => {
    expect(found.size).toBeGreaterThanOrEqual(8);
  });
  it('each is snake_case and documented in docs/contract.md', () => {
    const doc = readFileSync(join(__dirname, '../../docs/contract.md'), 'utf8');
    for (const [code, where] of found) {
      expect(code, where).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(doc.includes(`| \`${code}\` |`), `${code} (${where}) in docs/contract.md`).toBe(true);
    }
  });
});
