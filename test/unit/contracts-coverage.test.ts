import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_ROUTES, ALL_TOOLS } from '../../src-main/core/capabilities.js';
import { contracts } from '../../shared/contracts/index.js';

/**
 * The contract reaches both ends (docs/architecture.md "Contracts"): every route and tool is a use
 * case's, generated from its declaration, except the transport routes the doc lists; every route
 * has its contract and every contract its route; the window writes no /v1 path; the core keeps no
 * hand-written copy of a record and no registry keyed on the core.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function filesUnder(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p, ext));
    else if (ext.test(name)) out.push(p);
  }
  return out;
}

const CORE = filesUnder(join(ROOT, 'src-main/core'), /\.ts$/).filter((f) => !f.endsWith('.d.ts'));
const rel = (f: string) => relative(ROOT, f);
/** Where the two declaring functions are defined (and the use cases call them). */
const DEFINERS = new Set(['src-main/core/http/router.ts', 'src-main/core/mcp/tool.ts', 'src-main/core/usecase/define.ts']);

function callsOf(fn: string): { file: string; count: number }[] {
  const re = new RegExp(`\\b${fn}\\(`, 'g');
  return CORE.filter((f) => !DEFINERS.has(rel(f)))
    .map((f) => ({ file: rel(f), count: (readFileSync(f, 'utf8').match(re) ?? []).length }))
    .filter((x) => x.count > 0);
}

/** The transport routes, as docs/architecture.md "Transport routes" lists them: `METHOD /path` and the file. */
function transportTable(): { route: string; file: string }[] {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Transport routes'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('|---|')));
  return [...table.matchAll(/^\| `([A-Z]+ [^`]+)` \(`([^`]+)`\)/gm)].map((m) => ({ route: m[1]!, file: `src-main/core/${m[2]}` }));
}

const endpoints = Object.entries(contracts).flatMap(([cap, es]) =>
  Object.entries(es as Record<string, { method: string; path: string; answer?: string }>).map(([name, e]) => ({ name: `${cap}.${name}`, ...e })),
);

describe('the contracts cover both ends', () => {
  it('declares no tool outside a use case', () => {
    expect(callsOf('defineTool')).toEqual([]);
    expect(ALL_TOOLS.length).toBeGreaterThan(40);
  });

  it('declares no route outside a use case but the transport routes docs/architecture.md lists, at most 6', () => {
    const listed = transportTable();
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.length).toBeLessThanOrEqual(6);
    const perFile = new Map<string, number>();
    for (const t of listed) perFile.set(t.file, (perFile.get(t.file) ?? 0) + 1);
    expect(Object.fromEntries(callsOf('defineRoute').map((x) => [x.file, x.count]))).toEqual(Object.fromEntries(perFile));
    for (const t of listed) {
      const [method, path] = t.route.split(' ');
      expect(
        ALL_ROUTES.some((r) => r.method === method && r.path === path),
        `${t.route} is listed as a transport route`,
      ).toBe(true);
    }
  });

  it('gives every route its contract, and every contract its route (or the file bytes outside the router)', () => {
    const declared = new Set(endpoints.map((e) => `${e.method} ${e.path}`));
    const routed = new Set(ALL_ROUTES.map((r) => `${r.method} ${r.path}`));
    expect(ALL_ROUTES.filter((r) => !declared.has(`${r.method} ${r.path}`)).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    // A contract the router does not serve is a byte stream served beside it (files/http.ts).
    expect(endpoints.filter((e) => !routed.has(`${e.method} ${e.path}`) && e.answer !== 'stream').map((e) => e.name)).toEqual([]);
  });

  it('writes no /v1 path in the window', () => {
    const hits = filesUnder(join(ROOT, 'src-renderer/src'), /\.(ts|tsx)$/).flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => ({ where: `${rel(f)}:${i + 1}`, line }))
        .filter((x) => x.line.includes('/v1')),
    );
    expect(hits.map((h) => `${h.where}: ${h.line.trim()}`)).toEqual([]);
  });

  it('keeps no hand-written record interface in the core and no registry keyed on the core', () => {
    const records = /\b(?:interface|class)\s+(TaskRecord|MessageRecord|WakeDto|ConflictDto|FocusDto|DecisionDto)\b|\btype\s+(TaskRecord|MessageRecord|WakeDto|ConflictDto|FocusDto|DecisionDto)\s*=\s*\{/;
    const registries = /WeakMap<\s*Core\b/;
    const found = CORE.flatMap((f) => {
      const text = readFileSync(f, 'utf8');
      return [...(records.test(text) ? [`${rel(f)}: a hand-written record`] : []), ...(registries.test(text) ? [`${rel(f)}: WeakMap<Core>`] : [])];
    });
    expect(found).toEqual([]);
  });
});
