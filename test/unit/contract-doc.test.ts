import { describe, it, expect } from 'vitest';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join, relative } from 'node:path';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { contracts } from '../../shared/contracts/index.js';
import type { Endpoint } from '../../shared/contracts/contract.js';
import { recordNames, schemaText, type TextOptions } from '../helpers/schema-text.js';
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

/** Each contract endpoint by `METHOD path`, as `capability.name` (shared/contracts/index.ts). */
function contractEndpoints(): Array<{ id: string; cap: string; e: Endpoint }> {
  return Object.entries(contracts).flatMap(([cap, es]) => Object.entries(es as Record<string, Endpoint>).map(([name, e]) => ({ id: `${cap}.${name}`, cap, e })));
}

function routesTable(): string {
  const byRoute = new Map(contractEndpoints().map((c) => [`${c.e.method} ${c.e.path}`, c.id]));
  const rows = ['| capability | method | path | auth | room check | contract |', '| --- | --- | --- | --- | --- | --- |'];
  for (const [cap, routes] of ROUTE_GROUPS) {
    for (const r of routes) {
      const contract = byRoute.get(`${r.method} ${r.path}`);
      rows.push(`| ${cap} | ${r.method} | \`${r.path}\` | ${r.auth ?? 'owner'} | ${r.room ?? ''} | ${contract ? `[\`${contract}\`](#${anchorOf(contract)})` : ''} |`);
    }
  }
  return rows.join('\n');
}

// ---- the endpoints' shapes, from the contracts ------------------------------------------------

/** The modules whose exported schemas name the records: shared/schemas/ first (a record's home), then shared/contracts/. */
const SCHEMA_FILES = ['shared/schemas', 'shared/contracts'].flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => `${dir}/${f}`),
);
const RECORDS = recordNames(await Promise.all(SCHEMA_FILES.map(async (f) => [f, (await import(pathToFileURL(join(ROOT, f)).href)) as Record<string, unknown>] as [string, Record<string, unknown>])));

/** The anchor of an endpoint's or a record's entry on the page. */
function anchorOf(id: string): string {
  return `c-${id.replace(/[^A-Za-z0-9]+/g, '-')}`;
}

function shape(schema: z.ZodType, io: TextOptions['io'], label: string, used: Map<string, TextOptions['io']>, named: Set<string>): string {
  // An answer that is a named record is written by its name (its shape once, under Records); a body or query is written out.
  const { text, refs } = schemaText(schema, { io, names: RECORDS.names, byName: io === 'output' }, `${label}: `);
  for (const r of refs) {
    if (!used.has(r)) used.set(r, io);
    named.add(r);
  }
  return `${label}: ${text}`;
}

/** Links to the records a shape names. */
function namedLine(named: Set<string>): string[] {
  return named.size ? [`Records: ${[...named].map((n) => `[\`${n}\`](#${anchorOf(n)})`).join(', ')}.`, ''] : [];
}

function answerLabel(e: Endpoint): string {
  const status = e.status ?? (e.answer === 'empty' ? 204 : 200);
  return `answer${status === 200 ? '' : ` ${status}`}${e.answer === 'stream' ? ' (stream)' : ''}`;
}

/** A summary as markdown: a `<` outside a code span would start an HTML tag. */
function prose(text: string): string {
  return text
    .split('`')
    .map((part, i) => (i % 2 === 0 ? part.replace(/</g, '&lt;') : part))
    .join('`');
}

/** The records the endpoints' shapes name, in the order first named, each with the side (sent or answered) that named it. */
const usedRecords = new Map<string, TextOptions['io']>();

/** Every endpoint of `contracts`, by capability: method, path, auth, summary, and its body, query and answer as type text. */
function endpointsSection(): string {
  usedRecords.clear();
  const out: string[] = [];
  let cap = '';
  for (const c of contractEndpoints()) {
    if (c.cap !== cap) {
      cap = c.cap;
      out.push(`### \`${cap}\` (\`shared/contracts/${cap}.ts\`)`, '');
    }
    const e = c.e;
    const who = [e.auth ?? 'owner', ...(e.session ? [`session: ${e.session}`] : [])].join(', ');
    out.push(`<a id="${anchorOf(c.id)}"></a>**\`${c.id}\`** \`${e.method} ${e.path}\` (${who}): ${prose(e.summary)}`, '');
    const lines: string[] = [];
    const named = new Set<string>();
    if (e.body) lines.push(shape(e.body, 'input', 'body', usedRecords, named));
    if (e.query) lines.push(shape(e.query, 'input', 'query', usedRecords, named));
    lines.push(e.answer === 'empty' ? `${answerLabel(e)}: no body` : shape(e.output, 'output', answerLabel(e), usedRecords, named));
    out.push('```ts', ...lines, '```', '', ...namedLine(named));
  }
  return out.join('\n').trimEnd();
}

/** Each record an endpoint's shape names, once, with its module; records they name in turn follow. */
function recordsSection(): string {
  endpointsSection();
  const out: string[] = [];
  const done = new Set<string>();
  const queue = [...usedRecords.keys()].sort();
  while (queue.length) {
    const name = queue.shift()!;
    if (done.has(name)) continue;
    done.add(name);
    const io = usedRecords.get(name) ?? 'output';
    const { text, refs } = schemaText(RECORDS.schemas.get(name)!, { io, names: RECORDS.names }, `${name} = `);
    for (const r of refs) if (!usedRecords.has(r)) usedRecords.set(r, io);
    queue.push(...refs.filter((r) => !done.has(r)));
    queue.sort();
    const head = `<a id="${anchorOf(name)}"></a>**\`${name}\`** (\`${RECORDS.files.get(name)}\`${io === 'input' ? ', as sent' : ''})`;
    out.push(head, '', '```ts', `${name} = ${text}`, '```', '', ...namedLine(new Set(refs)));
  }
  return out.join('\n').trimEnd();
}

/** The transport routes as docs/architecture.md "Transport routes" lists them, with their contracts. */
function transportRoutes(): Array<{ route: string; file: string; why: string }> {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const at = doc.indexOf('### Transport routes');
  if (at < 0) throw new Error('docs/architecture.md has no "Transport routes" section');
  const section = doc.slice(at);
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('|---|') >= 0 ? section.indexOf('|---|') : section.indexOf('| --- |')));
  return [...table.matchAll(/^\| `([A-Z]+ [^`]+)` \(`([^`]+)`\) \| (.*?) \|$/gm)].map((m) => ({ route: m[1]!, file: m[2]!, why: m[3]! }));
}

function transportTable(): string {
  const byRoute = new Map(contractEndpoints().map((c) => [`${c.e.method} ${c.e.path}`, c.id]));
  const rows = ['| route | file | contract | why it is transport |', '| --- | --- | --- | --- |'];
  for (const t of transportRoutes()) {
    const contract = byRoute.get(t.route);
    rows.push(`| \`${t.route}\` | \`src-main/core/${t.file}\` | ${contract ? `[\`${contract}\`](#${anchorOf(contract)})` : ''} | ${t.why} |`);
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

const SECTIONS: Record<string, () => string> = {
  tools: toolsTable,
  routes: routesTable,
  transport: transportTable,
  endpoints: endpointsSection,
  records: recordsSection,
  events: eventsTable,
};

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

describe('the endpoints and their shapes on docs/contract.md', () => {
  it('has an entry for every endpoint of the contracts and for every record an entry names', () => {
    const text = endpointsSection() + '\n' + recordsSection();
    const entries = [...text.matchAll(/<a id="(c-[^"]+)"><\/a>/g)].map((m) => m[1]!);
    const endpoints = contractEndpoints().map((c) => anchorOf(c.id));
    expect(endpoints.length).toBeGreaterThan(10);
    for (const a of endpoints) expect(entries, a).toContain(a);
    for (const m of text.matchAll(/\]\(#(c-[^)]+)\)/g)) expect(entries, `a link to ${m[1]}`).toContain(m[1]);
    expect(new Set(entries).size).toBe(entries.length);
  });

  it('names each route\'s contract in the routes table', () => {
    const table = routesTable();
    expect(table).toContain('| GET | `/v1/reports` | owner |  | [`feedback.listReports`](#c-feedback-listReports) |');
  });

  const rec = z.object({ id: z.string(), n: z.number().int().nullable() });
  const names = recordNames([['shared/schemas/x.ts', { rec }]]).names;
  const text = (s: z.ZodType, io: TextOptions['io'] = 'output', o: Partial<TextOptions> & { byName?: boolean } = {}) => schemaText(s, { io, names, ...o }).text;

  it('writes a schema as a type: optional and nullable fields, records, tuples, literals and enums', () => {
    expect(text(z.object({ a: z.string().optional(), b: z.boolean().nullable(), c: z.literal('k'), d: z.enum(['x', 'y']) }))).toBe(
      '{ a?: string; b: boolean | null; c: "k"; d: "x" | "y" }',
    );
    expect(text(z.record(z.string(), z.number()))).toBe('Record<string, number>');
    expect(text(z.partialRecord(z.enum(['p', 'q']), z.string()))).toBe('Partial<Record<"p" | "q", string>>');
    expect(text(z.tuple([z.string(), z.number()]))).toBe('[string, number]');
    expect(text(z.array(z.union([z.string(), z.number()])))).toBe('(string | number)[]');
    expect(text(z.object({}))).toBe('{}');
  });

  it('writes what is sent on the input side and what is answered on the output side', () => {
    const withDefault = z.object({ limit: z.number().default(50), to: z.string().transform((x) => x.length) });
    expect(text(withDefault, 'input')).toBe('{ limit?: number; to: string }');
    expect(text(withDefault, 'output')).toBe('{ limit: number; to: unknown }');
  });

  it('writes a named record by its name where it is nested, and says it used it', () => {
    const r = schemaText(z.object({ one: rec.nullable(), all: z.array(rec) }), { io: 'output', names });
    expect(r.text).toBe('{ one: rec | null; all: rec[] }');
    expect(r.refs).toEqual(['rec']);
    expect(text(rec)).toBe('{ id: string; n: number | null }');
    expect(text(rec, 'output', { byName: true })).toBe('rec');
  });

  it('bounds depth and enums, and breaks a long line one field per line', () => {
    const deep = z.object({ a: z.object({ b: z.object({ c: z.object({ d: z.string() }) }) }) });
    expect(text(deep)).toBe('{ a: { b: { c: { … } } } }');
    expect(text(z.enum(['a', 'b', 'c', 'd']), 'output', { maxEnum: 3 })).toBe('"a" | "b" | …');
    expect(text(z.object({ kind: z.enum(['created', 'edited', 'claimed']) }), 'output', { width: 30 })).toBe('{\n  kind:\n    | "created"\n    | "edited"\n    | "claimed";\n}');
    const wide = z.object({ first_field: z.string(), second_field: z.object({ x: z.number(), y: z.number() }).nullable() });
    expect(text(wide, 'output', { width: 100 })).toBe('{ first_field: string; second_field: { x: number; y: number } | null }');
    expect(text(wide, 'output', { width: 50 })).toBe('{\n  first_field: string;\n  second_field: { x: number; y: number } | null;\n}');
    expect(text(wide, 'output', { width: 40 })).toBe('{\n  first_field: string;\n  second_field: {\n    x: number;\n    y: number;\n  } | null;\n}');
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
