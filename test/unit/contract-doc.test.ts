import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { join, relative } from 'node:path';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { ALL_ROUTES, ALL_TOOLS } from '../../src-main/core/capabilities.js';
import type { Route } from '../../src-main/core/http/router.js';
import type { ToolDef } from '../../src-main/core/mcp/tool.js';
import { ownerRoutes } from '../../src-main/core/owners/routes.js';
import { uiAuthRoutes } from '../../src-main/core/owners/ui-auth.js';
import { agentRoutes } from '../../src-main/core/agents/routes.js';
import { roomRoutes } from '../../src-main/core/rooms/routes.js';
import { messageRoutes } from '../../src-main/core/messages/routes.js';
import { eventRoutes } from '../../src-main/core/events/routes.js';
import { fileRoutes } from '../../src-main/core/files/routes.js';
import { workspaceRoutes } from '../../src-main/core/workspace/routes.js';
import { taskRoutes } from '../../src-main/core/tasks/routes.js';
import { feedbackRoutes } from '../../src-main/core/feedback/routes.js';
import { wakeRoutes } from '../../src-main/core/wakes/routes.js';
import { contextRoutes } from '../../src-main/core/context/routes.js';
import { reservationRoutes } from '../../src-main/core/reservations/routes.js';
import { searchRoutes } from '../../src-main/core/search/routes.js';
import { backupRoutes } from '../../src-main/core/backup/routes.js';
import { needsRoutes } from '../../src-main/core/needs/routes.js';
import { reviewRoutes } from '../../src-main/core/review/routes.js';
import { identityTools } from '../../src-main/core/identity/tools.js';
import { inboxTools } from '../../src-main/core/inbox/tools.js';
import { roomTools } from '../../src-main/core/rooms/tools.js';
import { messageTools } from '../../src-main/core/messages/tools.js';
import { addressingTools } from '../../src-main/core/addressing/tools.js';
import { contextTools } from '../../src-main/core/context/tools.js';
import { fileTools } from '../../src-main/core/files/tools.js';
import { workspaceTools } from '../../src-main/core/workspace/tools.js';
import { taskTools } from '../../src-main/core/tasks/tools.js';
import { reservationTools } from '../../src-main/core/reservations/tools.js';
import { searchTools } from '../../src-main/core/search/tools.js';
import { feedbackTools } from '../../src-main/core/feedback/tools.js';

/**
 * docs/contract.md carries the project's own account of its contract. Its tables of tools,
 * routes and live events are generated from the code and must stay equal to it: when this
 * test fails after a tool, route or event was added, run
 * `UPDATE_CONTRACT=1 npx vitest run test/unit/contract-doc.test.ts` and read the diff.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOC = join(ROOT, 'docs/contract.md');

const ROUTE_GROUPS: Array<[string, Route[]]> = [
  ['owners', ownerRoutes],
  ['owners (UI sign-in)', uiAuthRoutes],
  ['agents', agentRoutes],
  ['rooms', roomRoutes],
  ['messages', messageRoutes],
  ['events', eventRoutes],
  ['files', fileRoutes],
  ['workspace', workspaceRoutes],
  ['tasks', taskRoutes],
  ['feedback', feedbackRoutes],
  ['wakes', wakeRoutes],
  ['context', contextRoutes],
  ['reservations', reservationRoutes],
  ['search', searchRoutes],
  ['backup', backupRoutes],
  ['needs you', needsRoutes],
  ['review', reviewRoutes],
];

const TOOL_GROUPS: Array<[string, ToolDef[]]> = [
  ['identity', identityTools],
  ['inbox', inboxTools],
  ['rooms', roomTools],
  ['messages', messageTools],
  ['addressing', addressingTools],
  ['context', contextTools],
  ['files', fileTools],
  ['workspace', workspaceTools],
  ['tasks', taskTools],
  ['reservations', reservationTools],
  ['search', searchTools],
  ['feedback', feedbackTools],
];

function routesTable(): string {
  const rows = ['| capability | method | path | auth | room check |', '| --- | --- | --- | --- | --- |'];
  for (const [cap, routes] of ROUTE_GROUPS) {
    for (const r of routes) rows.push(`| ${cap} | ${r.method} | \`${r.path}\` | ${r.auth ?? 'owner'} | ${r.room ?? ''} |`);
  }
  return rows.join('\n');
}

function toolsTable(): string {
  const rows = ['| capability | tool | scope | room check | listed |', '| --- | --- | --- | --- | --- |'];
  for (const [cap, tools] of TOOL_GROUPS) {
    for (const t of tools) rows.push(`| ${cap} | \`${t.name}\` | ${t.scope} | ${t.room ?? ''} | ${t.advertised === false ? 'no' : 'yes'} |`);
  }
  return rows.join('\n');
}

/** The event names of `CoreEventData` in shared/core-events.ts, with their one-line comments. */
function eventsTable(): string {
  const src = readFileSync(join(ROOT, 'shared/core-events.ts'), 'utf8');
  const body = /export interface CoreEventData \{([\s\S]*?)\n\}/.exec(src)![1]!;
  const rows = ['| event | what it tells |', '| --- | --- |'];
  for (const m of body.matchAll(/\/\*\* (.*?) \*\/\s*\n\s*'([a-z.]+)':/g)) rows.push(`| \`${m[2]}\` | ${m[1]!.replace(/\|/g, '\\|')} |`);
  return rows.join('\n');
}

const SECTIONS: Record<string, () => string> = { tools: toolsTable, routes: routesTable, events: eventsTable };

function withSections(doc: string): string {
  let out = doc;
  for (const [name, make] of Object.entries(SECTIONS)) {
    const re = new RegExp(`(<!-- generated:${name} -->)[\\s\\S]*?(<!-- /generated:${name} -->)`);
    if (!re.test(out)) throw new Error(`docs/contract.md lacks the markers of the generated ${name} table`);
    out = out.replace(re, (_all, open: string, close: string) => `${open}\n${make()}\n${close}`);
  }
  return out;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (/\.(ts|tsx|mts|mjs|js|cjs|css|html)$/.test(e.name)) out.push(p);
  }
  return out;
}

describe('docs/contract.md', () => {
  it('groups every route and every tool under a capability', () => {
    expect(new Set(ROUTE_GROUPS.flatMap(([, r]) => r))).toEqual(new Set(ALL_ROUTES));
    expect(ROUTE_GROUPS.flatMap(([, r]) => r)).toHaveLength(ALL_ROUTES.length);
    expect(new Set(TOOL_GROUPS.flatMap(([, t]) => t))).toEqual(new Set(ALL_TOOLS));
    expect(TOOL_GROUPS.flatMap(([, t]) => t)).toHaveLength(ALL_TOOLS.length);
  });

  it('lists every event of shared/core-events.ts', () => {
    const src = readFileSync(join(ROOT, 'shared/core-events.ts'), 'utf8');
    const declared = [...src.matchAll(/^\s*'([a-z]+\.[a-z]+)':/gm)].map((m) => m[1]);
    const listed = [...eventsTable().matchAll(/^\| `([a-z.]+)`/gm)].map((m) => m[1]);
    expect(listed).toEqual(declared);
    expect(listed.length).toBeGreaterThan(10);
  });

  it('shows the tools, the /v1 routes and the events as the code has them', () => {
    const doc = readFileSync(DOC, 'utf8');
    const expected = withSections(doc);
    if (process.env.UPDATE_CONTRACT === '1' && expected !== doc) writeFileSync(DOC, expected);
    expect(doc, 'docs/contract.md is stale: UPDATE_CONTRACT=1 npx vitest run test/unit/contract-doc.test.ts').toBe(expected);
  });

  it('links only docs pages that exist', () => {
    const doc = readFileSync(DOC, 'utf8');
    const links = [...doc.matchAll(/\]\(([a-z-]+\.md)(#[^)]*)?\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(5);
    for (const l of links) expect(() => readFileSync(join(ROOT, 'docs', l)), l).not.toThrow();
  });
});

/** The names of the outside contract pages (the specification and its decisions), which this repository does not carry. */
const OUTSIDE_PAGES = ['decisions', 'interface'].map((n) => `${n}.md`);
const CITES_OUTSIDE = new RegExp(`\\b(${OUTSIDE_PAGES.map((p) => p.replace('.', '\\.')).join('|')})\\b`);

describe('code cites the contract the repository carries', () => {
  it('no file under src-main/, shared/, src-renderer/, scripts/ or test/ cites the outside contract pages', () => {
    const citing = ['src-main', 'shared', 'src-renderer', 'scripts', 'test']
      .flatMap(filesUnder)
      .filter((f) => CITES_OUTSIDE.test(readFileSync(join(ROOT, f), 'utf8')))
      .map((f) => relative(ROOT, join(ROOT, f)));
    expect(citing, 'point to the docs/ page that carries the rule instead').toEqual([]);
  });

  it('finds a planted citation', () => {
    for (const page of OUTSIDE_PAGES) expect(CITES_OUTSIDE.test(`/** ${page} "Limits" */`)).toBe(true);
    expect(CITES_OUTSIDE.test('/** docs/contract.md "Limits" */')).toBe(false);
    expect(CITES_OUTSIDE.test('/** docs/decisions-log.md */')).toBe(false);
  });
});
