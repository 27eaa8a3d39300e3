import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { ALL_ROUTES } from '../../src-main/core/capabilities.js';

/** What docs/architecture.md says of routes and transactions, checked against the code. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Room routes that do not declare `room:`, each with its reason (docs/architecture.md keeps the same list). */
const ROOM_ROUTES_WITHOUT_ROOM_CHECK: Record<string, string> = {
  'POST /v1/rooms/:id/reservations/check': 'public: the pre-commit guard authenticates itself (docs/reservations.md)',
};

/** Plain (deferred) transactions, each with its reason: reads that want one snapshot and write nothing. */
const DEFERRED_TRANSACTIONS: Record<string, number> = {
  'src-main/core/reservations/service.ts': 1,
  'src-main/core/context/service.ts': 1,
};

/** Adapters allowed to emit a live event or open a transaction themselves: none (services own both). */
const ADAPTERS_WITH_SIDE_EFFECTS: readonly string[] = [];

/** The transport adapters: they parse, call one service function and map errors (docs/architecture.md). */
const isAdapter = (f: string) => /\/(routes|tools|http)\.ts$/.test(f);

/** Live events and transactions an adapter starts itself, as `line: text`. */
function sideEffects(src: string): string[] {
  return src.split('\n').flatMap((line, i) => (/\bbus\.emit\(|\bimmediate\(|\.transaction\(/.test(line) ? [`${i + 1}: ${line.trim()}`] : []));
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...tsFiles(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** `x.transaction(fn)` called right away (deferred), not through `immediate()` or `.immediate()`. */
function deferredTransactions(src: string): number {
  let n = 0;
  for (const m of src.matchAll(/\.transaction\(/g)) {
    // Find the call's closing parenthesis, then look at what follows it.
    let depth = 0;
    let i = m.index! + m[0].length - 1;
    for (; i < src.length; i++) {
      if (src[i] === '(') depth++;
      else if (src[i] === ')' && --depth === 0) break;
    }
    if (!src.slice(i + 1).startsWith('.immediate(')) n++;
  }
  return n;
}

describe('docs/architecture.md holds', () => {
  it('every route on a room (/v1/rooms/:id/…) declares room: unless listed with a reason', () => {
    const missing = ALL_ROUTES.filter((r) => r.path.startsWith('/v1/rooms/:id') && !r.room)
      .map((r) => `${r.method} ${r.path}`)
      .filter((k) => !(k in ROOM_ROUTES_WITHOUT_ROOM_CHECK));
    expect(missing).toEqual([]);
    for (const k of Object.keys(ROOM_ROUTES_WITHOUT_ROOM_CHECK)) {
      expect(ALL_ROUTES.some((r) => `${r.method} ${r.path}` === k && !r.room), `${k} is listed but declares room: now`).toBe(true);
    }
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    for (const k of Object.keys(ROOM_ROUTES_WITHOUT_ROOM_CHECK)) expect(doc).toContain(`\`${k}\``);
  });

  it('multi-step writes run in immediate transactions; the deferred ones are listed reads', () => {
    const found: Record<string, number> = {};
    for (const f of tsFiles('src-main/core')) {
      if (f === 'src-main/core/db/open.ts') continue;
      const n = deferredTransactions(readFileSync(join(ROOT, f), 'utf8'));
      if (n) found[f] = n;
    }
    expect(found).toEqual(DEFERRED_TRANSACTIONS);
  });

  it('adapters (routes.ts, tools.ts, http.ts) neither emit live events nor open transactions: their services do', () => {
    const found: Record<string, string[]> = {};
    for (const f of tsFiles('src-main/core').filter(isAdapter)) {
      const hits = sideEffects(readFileSync(join(ROOT, f), 'utf8'));
      if (hits.length && !ADAPTERS_WITH_SIDE_EFFECTS.includes(f)) found[f] = hits;
    }
    expect(found).toEqual({});
    for (const f of ADAPTERS_WITH_SIDE_EFFECTS) {
      expect(sideEffects(readFileSync(join(ROOT, f), 'utf8')).length, `${f} is listed as an exception but is clean now: remove it from the list`).toBeGreaterThan(0);
    }
  });

  it('finds an emit or a transaction in an adapter', () => {
    expect(sideEffects("core.bus.emit({ type: 'agents.changed' });")).toHaveLength(1);
    expect(sideEffects('const n = immediate(db, () => 1);\nreturn n;')).toEqual(['1: const n = immediate(db, () => 1);']);
    expect(sideEffects('db.transaction(() => 1).immediate();')).toHaveLength(1);
    expect(sideEffects('setImmediate(() => ack(core));')).toEqual([]);
    expect(isAdapter('src-main/core/files/http.ts') && isAdapter('src-main/core/agents/routes.ts') && !isAdapter('src-main/core/agents/service.ts')).toBe(true);
  });

  it('tells a deferred transaction from an immediate one', () => {
    expect(deferredTransactions('db.transaction(() => { a(); })();')).toBe(1);
    expect(deferredTransactions('db.transaction(() => { f(g()); }).immediate();')).toBe(0);
    expect(deferredTransactions('immediate(db, () => 1);')).toBe(0);
  });
});
