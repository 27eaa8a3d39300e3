import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MODULE = 'electr' + 'on'; // spelled in two so this file is no match for its own scan

/** The lines of a source file that load the electron module, by import, export, require or import(). */
function electronImports(source: string): string[] {
  const q = `['"]${MODULE}(?:/[^'"]*)?['"]`;
  const patterns = [
    new RegExp(`^\\s*import\\s[^;]*?from\\s*${q}`, 'm'),
    new RegExp(`^\\s*import\\s*${q}`, 'm'),
    new RegExp(`^\\s*export\\s[^;]*?from\\s*${q}`, 'm'),
    new RegExp(`\\brequire\\s*\\(\\s*${q}\\s*\\)`),
    new RegExp(`\\bimport\\s*\\(\\s*${q}\\s*\\)`),
  ];
  const hits: string[] = [];
  // Statements may span lines: test each statement-sized chunk.
  for (const chunk of source.split(/;|\n(?=\s*(?:import|export)\b)/)) if (patterns.some((p) => p.test(chunk))) hits.push(chunk.trim());
  return hits;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.') || name === 'release' || name === 'test-results') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(c|m)?(t|j)sx?$/.test(name)) out.push(p);
  }
  return out;
}

describe('layering: only src-main/electron/ loads electron', () => {
  it('the scan recognises every way of loading it', () => {
    const loads = [
      `import { app } from '${MODULE}';`,
      `import {\n  app,\n  BrowserWindow,\n} from "${MODULE}";`,
      `import type { App } from '${MODULE}';`,
      `import '${MODULE}';`,
      `export { app } from '${MODULE}';`,
      `const { app } = require('${MODULE}');`,
      `const e = await import("${MODULE}");`,
      `import { ipcRenderer } from '${MODULE}/renderer';`,
    ];
    for (const src of loads) expect([src, electronImports(src).length]).toEqual([src, 1]);
    const clean = [
      `import { x } from './${MODULE}-helpers.js';`,
      `// the ${MODULE} shell starts the core`,
      `const name = '${MODULE}';`,
      `import { a } from '${MODULE}-builder';`,
      `import { b } from '../src-main/${MODULE}/shell.js';`,
    ];
    for (const src of clean) expect([src, electronImports(src)]).toEqual([src, []]);
  });

  it('nothing outside src-main/electron/ imports it', () => {
    const files = sourceFiles(ROOT);
    expect(files.length).toBeGreaterThan(20);
    const shell = join(ROOT, 'src-main', MODULE) + sep;
    const offenders = files
      .filter((f) => !f.startsWith(shell))
      .flatMap((f) => electronImports(readFileSync(f, 'utf8')).map((line) => `${relative(ROOT, f)}: ${line}`));
    expect(offenders).toEqual([]);
    // and the shell itself does load it: the scan is looking at the right tree
    expect(electronImports(readFileSync(join(shell, 'main.ts'), 'utf8')).length).toBeGreaterThan(0);
    // while its pure parts, tested under plain node, do not
    for (const pure of ['shell.ts', 'notify.ts']) expect([pure, electronImports(readFileSync(join(shell, pure), 'utf8'))]).toEqual([pure, []]);
  });
});
