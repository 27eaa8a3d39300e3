import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const CORE = fileURLToPath(new URL('../../src-main/core/', import.meta.url));

/** The project files a module loads at its start: its static imports and re-exports, not `import()`. */
function staticImports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of source.matchAll(/^\s*(?:import|export)\s(?:[^;'"]*?\sfrom\s*)?['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    if (/^\s*import\s+type\s/.test(m[0]) || /^\s*export\s+type\s/.test(m[0])) continue;
    const target = resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts'));
    if (existsSync(target)) out.push(target);
  }
  return out;
}

function loadedAtStart(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    todo.push(...staticImports(f));
  }
  return seen;
}

/**
 * `agent-rooms connect`, `doctor`, `guard` (run by a git pre-commit hook), `backup` and `--help`
 * start without the server's core: it is imported only to serve (docs/hosts.md). The CLI started
 * in 0.8 s, about 0.6 s of it loading the core; without it, about 0.2 s.
 */
describe('the CLI starts light', () => {
  it('loads the core only for serve: start.ts and the core it assembles are not among its static imports', () => {
    const loaded = loadedAtStart(join(CORE, 'cli.ts'));
    expect(loaded.size).toBeGreaterThan(5);
    expect(loaded.has(join(CORE, 'hosts/connect.ts'))).toBe(true);
    for (const heavy of ['start.ts', 'assemble.ts', 'capabilities.ts']) expect(loaded.has(join(CORE, heavy)), heavy).toBe(false);
    expect(readFileSync(join(CORE, 'cli.ts'), 'utf8')).toMatch(/await import\('\.\/start\.js'\)/);
  });

  it('the scan follows static imports and re-exports, and not import() or type-only imports', () => {
    // start.ts itself loads the core statically: the scan must see that.
    const fromStart = loadedAtStart(join(CORE, 'start.ts'));
    expect(fromStart.has(join(CORE, 'assemble.ts'))).toBe(true);
  });
});
