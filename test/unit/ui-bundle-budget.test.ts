import { describe, it, expect } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants } from 'node:zlib';

/**
 * The window's download stays within its budget (docs/ui.md "Size and speed"): every JS and CSS
 * file of the built UI (lazy chunks too: splitting moves bytes, it does not remove them), raw and
 * brotli-compressed as scripts/compress-ui.mjs compresses them. 535 KiB / 152 KiB is +10 % on the
 * 486 KiB / 138 KiB of 25 Nov 2026 (issue 46: "the bundle within +10 %").
 */
const BUDGET = { rawKiB: 535, brotliKiB: 152 };
const ASSETS = fileURLToPath(new URL('../../dist/renderer/assets', import.meta.url));
const files = existsSync(ASSETS) ? readdirSync(ASSETS).filter((f) => /\.(js|css)$/.test(f)) : [];
if (files.length === 0) console.log(`ui-bundle-budget: skipped, the UI is not built (${ASSETS} has no .js/.css; npm run build)`);

const brotli = promisify(brotliCompress);

describe('the UI bundle', () => {
  it.skipIf(files.length === 0)(`is at most ${BUDGET.rawKiB} KiB raw and ${BUDGET.brotliKiB} KiB brotli (JS + CSS)`, async () => {
    let raw = 0;
    let br = 0;
    for (const f of files) {
      const bytes = readFileSync(join(ASSETS, f));
      raw += bytes.length;
      // compress-ui.mjs's sibling when it is from this build (npm run build writes it), else the same compression here.
      const sibling = join(ASSETS, `${f}.br`);
      if (existsSync(sibling) && statSync(sibling).mtimeMs >= statSync(join(ASSETS, f)).mtimeMs) br += statSync(sibling).size;
      else br += (await brotli(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } })).length;
    }
    const kib = (n: number) => Math.round((n / 1024) * 10) / 10;
    console.log(`ui-bundle-budget: ${files.length} files, ${kib(raw)} KiB raw, ${kib(br)} KiB brotli`);
    expect(kib(raw), `raw KiB of ${files.join(', ')}`).toBeLessThanOrEqual(BUDGET.rawKiB);
    expect(kib(br), 'brotli KiB').toBeLessThanOrEqual(BUDGET.brotliKiB);
  });

  // The client is typed from the contracts, but the bundle holds only their methods and paths
  // (src-renderer/vite.config.ts contractTable; docs/architecture.md "Contracts"): no zod, no schema.
  it.skipIf(files.length === 0)('ships the contracts as a table of methods and paths, without zod', () => {
    const js = files.filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(ASSETS, f), 'utf8')).join('\n');
    for (const zodMark of ['ZodError', '$ZodType', 'invalid_type', 'too_big']) expect(js, `zod's "${zodMark}" in the bundle`).not.toContain(zodMark);
    // The table itself is there: a path every window calls, next to its method.
    expect(js).toMatch(/"?method"?:"POST","?path"?:"\/v1\/rooms\/:id\/tasks\/:taskId\/cancel"/);
  });
});
