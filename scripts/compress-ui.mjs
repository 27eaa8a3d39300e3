// After `vite build`: writes .br and .gz siblings of the UI's text assets, so the server sends
// them precompressed (http/static-ui.ts) without compressing on every request. Also removes any
// source map, so a production build never ships one.
import { readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const dir = process.argv[2] ?? fileURLToPath(new URL('../dist/renderer', import.meta.url));
const TEXT = /\.(js|css|html|svg|json|ico|webmanifest)$/;
let files = 0;
let before = 0;
let after = 0;

function walk(d) {
  for (const name of readdirSync(d)) {
    const p = join(d, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.map')) unlinkSync(p);
    else if (TEXT.test(name) && statSync(p).size >= 512) {
      const raw = readFileSync(p);
      const br = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
      const gz = gzipSync(raw, { level: 9 });
      writeFileSync(p + '.br', br);
      writeFileSync(p + '.gz', gz);
      files++;
      before += raw.length;
      after += br.length;
    }
  }
}

walk(dir);
console.log(`compress-ui: ${files} files, ${(before / 1024).toFixed(0)} KiB -> ${(after / 1024).toFixed(0)} KiB brotli`);
