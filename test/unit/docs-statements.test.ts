import { describe, it, expect } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IN_PROCESS_FILES, IN_PROCESS_FOLDER, IN_PROCESS_SERVING } from '../../vitest.config.js';
import { CAPABILITIES, TABLE_EXCEPTIONS } from '../../src-main/core/layering.mjs';
import { CONTEXT_CLASSES } from '../../src-main/core/context/service.js';
import { SEARCH_BUDGET_MS } from '../../src-main/core/search/service.js';
import { bodyTimeouts } from '../../src-main/core/http/body.js';
import { API_BODY_LIMIT } from '../../src-main/core/http/api.js';
import { MCP_BODY_LIMIT } from '../../src-main/core/mcp/handler.js';

/**
 * What docs/architecture.md and docs/testing.md (and the other pages) say that the code can be
 * asked, asked: every file a page cites exists, every page and section a comment or a page cites
 * is there, and each statement below (a count, a name in a file, a constant, a list) still reads
 * in its page as the code has it. A statement checked by a test of its own names that test here.
 * When one fails, the page or the code changed: make them agree again.
 *
 * Checked by tests of their own, so not again here: the allowed graph and the table owners
 * (layering.test.ts), the ports (core-ports.test.ts), the services (core-services.test.ts), room
 * routes without a room check, the deferred transactions per file and the adapters' side effects
 * (architecture-doc.test.ts), the transport routes, the use cases' declarations and the window's
 * /v1 paths (contracts-coverage.test.ts), the live events (events-contract.test.ts), the contract
 * page's tables and shapes (contract-doc.test.ts), the bundle without zod (ui-bundle-budget.test.ts),
 * the in-process files' rules (test-projects.test.ts), the refusal codes (refusal-codes.test.ts).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const flat = (s: string) => s.replace(/\s+/g, ' ');

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    if (['node_modules', 'dist', 'release', 'test-results', '.git'].includes(e.name)) continue;
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...filesUnder(p, keep));
    else if (keep(e.name)) out.push(p);
  }
  return out;
}

const DOCS = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
const CODE = ['src-main', 'shared', 'src-renderer', 'scripts', 'test'].flatMap((d) => filesUnder(d, (n) => /\.(ts|tsx|mts|mjs|cjs|js)$/.test(n)));

// ---- pages and sections cited -------------------------------------------------------------------

const norm = (s: string) => s.toLowerCase().replace(/[`*_]/g, '').replace(/\s+/g, ' ').trim();
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What a page can be cited by: its headings, its bold labels, and the labels that open a list item or a paragraph (`Text:`). */
function placesOf(text: string): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  lines.forEach((l, i) => {
    const h = /^#{1,6} (.*)$/.exec(l);
    if (h) out.push(norm(h[1]!));
    for (const b of l.matchAll(/\*\*([^*]+)\*\*/g)) out.push(norm(b[1]!));
    const item = /^\s*[-*] ([A-Z][^:.]{2,60}):/.exec(l);
    if (item) out.push(norm(item[1]!));
    const para = /^([A-Z][^.:(]{2,60}?)\s*(?:\([^)]*\))?:/.exec(l);
    if (para && (i === 0 || lines[i - 1]!.trim() === '')) out.push(norm(para[1]!));
  });
  return out;
}

const PAGES: Record<string, string[]> = Object.fromEntries([...DOCS.map((d) => [d, placesOf(read(`docs/${d}`))]), ['README.md', placesOf(read('README.md'))]]);

/** A section cited: `page.md "Section"`, `page.md, "Section"`, `[page.md](page.md), "Section"`, or `page.md *Section*`. */
const SECTION_CITED = /(?:docs\/)?\b([a-z][a-z0-9-]*\.md|README\.md)\b\)?,?\s*(?:section\s*)?["“*]([^"”*\n]{2,80})["”*]/g;

/** Whether `page` has the section `cited`: a heading or label holding its words. */
function hasSection(page: string, cited: string): boolean {
  const words = new RegExp(`(^|[^a-z0-9])${escapeRe(norm(cited))}($|[^a-z0-9])`);
  return (PAGES[page] ?? []).some((p) => words.test(p));
}

/** The comments of a source file, strings left out (a test's `'docs/plan.md'` is a file name, `'src/**'` no comment); a page's whole text. */
function citingText(file: string): string {
  const text = read(file);
  if (file.endsWith('.md')) return text;
  return commentsOf(text);
}

function commentsOf(src: string): string {
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    const next = src[i + 1];
    if (c === '/' && next === '/') {
      const end = src.indexOf('\n', i);
      out += src.slice(i, end < 0 ? undefined : end) + '\n';
      i = end < 0 ? src.length : end;
    } else if (c === '/' && next === '*') {
      const end = src.indexOf('*/', i + 2);
      out += src.slice(i, end < 0 ? undefined : end + 2) + '\n';
      i = end < 0 ? src.length : end + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      // Skip the string to its closing quote (escapes included); a template's `${…}` is skipped with it.
      i++;
      while (i < src.length && src[i] !== c && !(c !== '`' && src[i] === '\n')) i += src[i] === '\\' ? 2 : 1;
      i++;
    } else i++;
  }
  return out;
}

const CITING = [...CODE, ...DOCS.map((d) => `docs/${d}`)];

// ---- files cited by the pages -------------------------------------------------------------------

/** Where a page's path may start: the repository, the core, the window's sources, the tests. */
const BASES = ['', 'src-main/core/', 'src-main/', 'src-renderer/src/', 'src-renderer/', 'test/', 'docs/'];
const REPO_FILES = [
  ...['src-main', 'shared', 'src-renderer', 'scripts', 'test', 'docs'].flatMap((d) => filesUnder(d, () => true)),
  ...readdirSync(ROOT).filter((f) => statSync(join(ROOT, f)).isFile()),
];
const NAMES = new Set(REPO_FILES.map((f) => basename(f)));

/** Names the pages cite that are not files of this repository, each with what it is. */
const NOT_REPOSITORY_FILES: Record<string, string> = {
  'GEMINI.md': 'a host instructions file connect writes in the user’s project (docs/hosts.md)',
  'AGENTS.md': 'a host instructions file in the user’s project (docs/hosts.md)',
  'agent-rooms-wake.md': 'a host rules file connect writes (docs/hosts.md)',
  'agent-rooms-guard.cjs': 'the pre-commit hook `guard install` writes into a repository’s hooks (docs/reservations.md)',
  'src/api/routes.ts': 'an example path a reservation pattern covers (docs/reservations.md)',
  'punycode.js': 'the npm package a markdown-deps stand-in replaces (docs/ui.md)',
  'seat.c': '`seat.c`, the connected client of a seat (docs/testing.md), not a file',
};

/** A backticked token that names a file: a path or a name with a source or page extension, no placeholder. */
function citedFile(token: string): string | undefined {
  const t = token.replace(/[:,;.]$/, '');
  if (!/\.(ts|tsx|mts|mjs|cjs|js|md|c|sh)$/.test(t)) return undefined;
  if (/[<>*{}$…]|NNNN|^~|^\/|^https?:|^-|^\.|^(dist|release|test-results)\//.test(t)) return undefined;
  return t;
}

/** The cited files of `text` that are not there: a path that resolves nowhere, a bare name no file of the repository has. */
function missingFiles(text: string): string[] {
  const missing: string[] = [];
  for (const para of text.split(/\n\s*\n/)) {
    const tokens = [...para.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
    // A folder the paragraph names is where its short paths may start too.
    const folders = tokens.filter((t) => t.endsWith('/')).flatMap((t) => BASES.map((b) => b + t).filter((p) => existsSync(join(ROOT, p))));
    for (const token of tokens) {
      const f = citedFile(token);
      if (!f || f in NOT_REPOSITORY_FILES) continue;
      const found = f.includes('/') ? [...BASES, ...folders].some((b) => existsSync(join(ROOT, b + f))) : NAMES.has(f);
      if (!found) missing.push(f);
    }
  }
  return missing;
}

/**
 * A page's "Code:" paragraph (`Code: \`src-main/core/x/\` — \`a.ts\` …`, or "the code lives in
 * `src-main/core/x/`: …") names the files of that folder: each must be there.
 */
function missingInCodeLines(text: string): string[] {
  const missing: string[] = [];
  for (const para of text.split(/\n\s*\n/)) {
    const m = /(?:^Code:|code lives in) `(src-main\/core\/[a-z-]+\/)`/m.exec(para);
    if (!m) continue;
    const folders = [...para.matchAll(/`(src-main\/core\/[a-z-]+\/)` \(([^);]*)/g)];
    for (const [, folder, list] of folders) {
      // `src-main/core/files/` (paths, blobs, store, …): the parenthesised words are its files.
      for (const word of list!.split(',').map((w) => w.trim())) if (/^[a-z-]+$/.test(word) && !existsSync(join(ROOT, folder!, `${word}.ts`))) missing.push(`${folder}${word}.ts`);
    }
    for (const t of para.matchAll(/`([a-z-]+\.ts)`/g)) if (!existsSync(join(ROOT, m[1]!, t[1]!))) missing.push(`${m[1]}${t[1]}`);
  }
  return missing;
}

describe('what the pages cite exists', () => {
  it('every file a page of docs/ cites is a file of the repository', () => {
    const missing = DOCS.flatMap((d) => missingFiles(read(`docs/${d}`)).map((f) => `docs/${d}: ${f}`));
    expect(missing).toEqual([]);
    for (const name of Object.keys(NOT_REPOSITORY_FILES)) expect(REPO_FILES.some((f) => f.endsWith(name)), `${name} is a file of the repository now`).toBe(false);
  });

  it('every file a "Code:" paragraph names is in the folder it names', () => {
    expect(DOCS.flatMap((d) => missingInCodeLines(read(`docs/${d}`)).map((f) => `docs/${d}: ${f}`))).toEqual([]);
  });

  it('every docs/ page a comment or a page cites exists', () => {
    const missing = CITING.flatMap((f) => [...citingText(f).matchAll(/\bdocs\/([a-z][a-z0-9-]*\.md)\b/g)].filter((m) => !DOCS.includes(m[1]!)).map((m) => `${f}: docs/${m[1]}`));
    expect(missing).toEqual([]);
  });

  it('every section a comment or a page cites is a heading or label of its page', () => {
    const missing = CITING.flatMap((f) =>
      [...citingText(f).matchAll(SECTION_CITED)].filter((m) => m[1]! in PAGES && !hasSection(m[1]!, m[2]!)).map((m) => `${f}: ${m[1]} "${m[2]}"`),
    );
    expect([...new Set(missing)]).toEqual([]);
  });

  it('finds a planted missing file, page and section', () => {
    expect(missingFiles('See `src-main/core/rooms/nothing-here.ts` and `no-such-file.ts`.')).toEqual(['src-main/core/rooms/nothing-here.ts', 'no-such-file.ts']);
    expect(missingFiles('`src-main/core/rooms/` has `store.ts`; `test/unit/docs-statements.test.ts`.')).toEqual([]);
    expect(missingInCodeLines('The code lives in `src-main/core/feedback/`: `store.ts` and `consent.ts`.')).toEqual(['src-main/core/feedback/store.ts']);
    expect(missingInCodeLines('Code: `src-main/core/files/` (paths, blobs, nope; more) and more.')).toEqual(['src-main/core/files/nope.ts']);
    const cited = [...'(docs/testing.md "Two projects") and (docs/testing.md "Three projects")'.matchAll(SECTION_CITED)].map((m) => hasSection(m[1]!, m[2]!));
    expect(cited).toEqual([true, false]);
    expect(hasSection('wakes.md', 'Liveness')).toBe(true);
    expect(commentsOf("const a = 'src/**'; // see docs/a.md\nconst b = '/* x */'; /* docs/b.md */")).toBe('// see docs/a.md\n/* docs/b.md */\n');
  });
});

// ---- statements, each checked against the code ------------------------------------------------

/** The source declares `name` (a function, constant, class, type or interface; or an exported name). */
function declares(file: string, name: string): boolean {
  const src = read(file);
  const n = escapeRe(name);
  return new RegExp(`\\b(function\\*?|const|let|class|interface|type|enum)\\s+${n}\\b`).test(src) || new RegExp(`export\\s*\\{[^}]*\\b${n}\\b[^}]*\\}`).test(src);
}

/** Names a page gives, with the file that holds each (the page says where, in its words): the page must still name them, the file must declare them. */
const NAMED: Array<{ doc: string; file: string; names: string[] }> = [
  {
    doc: 'architecture.md',
    file: 'src-main/core/db/open.ts',
    names: ['immediate', 'writeBehind', 'answerLeavesThisTurn', 'writeBehindOpen'],
  },
  { doc: 'architecture.md', file: 'src-main/core/db/stmt.ts', names: ['stmt'] },
  { doc: 'architecture.md', file: 'src-main/core/mcp/handler.ts', names: ['answeredAs'] },
  { doc: 'architecture.md', file: 'src-main/core/reservations/service.ts', names: ['listReservations'] },
  { doc: 'architecture.md', file: 'src-main/core/context/service.ts', names: ['roomContext'] },
  { doc: 'architecture.md', file: 'src-main/core/util/repeat.ts', names: ['repeat', 'activeRepeats'] },
  { doc: 'architecture.md', file: 'src-main/core/capabilities.ts', names: ['CAPABILITY_STARTERS', 'CAPABILITY_PORTS'] },
  { doc: 'architecture.md', file: 'src-main/core/core.ts', names: ['requirePorts', 'requireServices', 'SERVICE_NAMES', 'notifyActed', 'notifyTaskEnded', 'notifyWorktreeRetired'] },
  { doc: 'architecture.md', file: 'src-main/core/assemble.ts', names: ['assembleCore'] },
  { doc: 'architecture.md', file: 'src-main/core/start.ts', names: ['startCore'] },
  { doc: 'architecture.md', file: 'src-main/core/http/api.ts', names: ['dispatchApi'] },
  { doc: 'architecture.md', file: 'src-main/core/mcp/call.ts', names: ['callTool'] },
  { doc: 'architecture.md', file: 'src-main/core/usecase/define.ts', names: ['defineUseCase'] },
  { doc: 'architecture.md', file: 'shared/contracts/contract.ts', names: ['endpoint'] },
  { doc: 'architecture.md', file: 'shared/contracts/acts.ts', names: ['withActions'] },
  { doc: 'architecture.md', file: 'src-renderer/src/client.ts', names: ['client', 'urlOf'] },
  { doc: 'architecture.md', file: 'src-renderer/vite.config.ts', names: ['contractTable'] },
  { doc: 'architecture.md', file: 'src-main/core/tasks/store.ts', names: ['taskOpenSql'] },
  { doc: 'architecture.md', file: 'src-main/core/rooms/store.ts', names: ['roomHasAgentSql', 'postToRoom', 'touchRoom'] },
  { doc: 'architecture.md', file: 'src-main/core/agents/store.ts', names: ['agentActiveSql'] },
  { doc: 'architecture.md', file: 'src-main/core/inbox/store.ts', names: ['nextInboxSeqSql', 'addInboxItem'] },
  { doc: 'architecture.md', file: 'src-main/core/wakes/store.ts', names: ['nextWakeSeqSql', 'chainDepthCausedBySql', 'enqueueWake', 'mayWake'] },
  { doc: 'architecture.md', file: 'src-main/core/idempotency/store.ts', names: ['withIdempotency'] },
  { doc: 'architecture.md', file: 'src-main/core/db/home.ts', names: ['prepareHome'] },
  { doc: 'architecture.md', file: 'src-main/core/db/lock.ts', names: ['acquireHomeLock'] },
  { doc: 'architecture.md', file: 'src-main/core/files/blobs.ts', names: ['pinBlobs'] },
  { doc: 'architecture.md', file: 'src-main/core/errors/app-error.ts', names: ['AppError'] },
  { doc: 'architecture.md', file: 'src-main/core/layering.mjs', names: ['SHELL_IMPORT_RULE'] },
  { doc: 'architecture.md', file: 'src-renderer/src/stores/room-resource.ts', names: ['createRoomResource'] },
  { doc: 'architecture.md', file: 'test/helpers/core.ts', names: ['waitFor'] },
  { doc: 'testing.md', file: 'test/helpers/server.ts', names: ['startTestServer', 'ok', 'fails', 'call'] },
  { doc: 'testing.md', file: 'test/helpers/app.ts', names: ['openTestApp'] },
  { doc: 'testing.md', file: 'test/helpers/memory-core.ts', names: ['openMemoryCore'] },
  { doc: 'testing.md', file: 'test/helpers/core.ts', names: ['callChecked', 'expectToolError', 'count', 'sessionIdOf'] },
  { doc: 'testing.md', file: 'test/helpers/seat.ts', names: ['agentInRoom', 'appFor', 'seatFor'] },
  { doc: 'testing.md', file: 'test/helpers/for-file.ts', names: ['forFile'] },
  { doc: 'testing.md', file: 'test/helpers/migrations.ts', names: ['migratedTo', 'insertRow'] },
  { doc: 'testing.md', file: 'test/security/helpers.ts', names: ['runnerRig', 'writeRunnerScript'] },
  { doc: 'testing.md', file: 'test/helpers/browser.ts', names: ['openUi', 'browserSkip', 'openSignedIn', 'openTab', 'signedInPage', 'uiForFile', 'settled', 'quiet'] },
  { doc: 'testing.md', file: 'test/hosts/helpers.ts', names: ['openHostRig', 'writeCodexConfig', 'claudeHostEnv'] },
  { doc: 'testing.md', file: 'test/helpers/child.ts', names: ['spawnServer'] },
  { doc: 'testing.md', file: 'test/helpers/cli-bundle.ts', names: ['cliArgs', 'scriptArgs', 'TEST_SCRIPTS'] },
  { doc: 'testing.md', file: 'test/helpers/packaging.ts', names: ['packagedFiles', 'ensureShellBuilt'] },
  { doc: 'testing.md', file: 'src-main/core/owners/login.ts', names: ['createUiSession'] },
  { doc: 'testing.md', file: 'src-main/core/search/service.ts', names: ['SEARCH_BUDGET_MS'] },
];

/** The numbers a phrase of a page gives, as written (`1,000` is 1000). */
function numbersIn(doc: string, phrase: RegExp): number[] {
  const m = phrase.exec(flat(read(`docs/${doc}`)));
  if (!m) throw new Error(`docs/${doc} no longer says ${phrase}`);
  return m.slice(1).map((n) => Number(n!.replace(/,/g, '')));
}

/** The in-process and isolated files as vitest.config.ts makes them (docs/testing.md "Two projects"). */
function projectCounts() {
  const tests = (dir: string) => filesUnder(dir, (n) => n.endsWith('.test.ts'));
  const unit = tests(IN_PROCESS_FOLDER);
  const listed = [...IN_PROCESS_FILES, ...IN_PROCESS_SERVING.filter((f) => !f.startsWith(`${IN_PROCESS_FOLDER}/`))];
  const inProcess = new Set([...unit, ...listed]);
  const all = [...unit, ...tests('test/integration'), ...tests('test/e2e'), ...tests('test/security'), ...readdirSync(join(ROOT, 'test/hosts')).filter((f) => f.endsWith('.test.ts')).map((f) => `test/hosts/${f}`)];
  return {
    inProcess: inProcess.size,
    unit: unit.length,
    integration: listed.filter((f) => f.startsWith('test/integration/')).length,
    security: listed.filter((f) => f.startsWith('test/security/')).length,
    serving: IN_PROCESS_SERVING.length,
    isolated: all.filter((f) => !inProcess.has(f)).length,
  };
}

interface Statement {
  doc: string;
  /** What the page says, as it reads (whitespace aside). */
  says: string[];
  check: () => void;
}

const STATEMENTS: Record<string, Statement> = {
  'the adapters have no listed exceptions (test/unit/architecture-doc.test.ts holds the list, empty)': {
    doc: 'architecture.md',
    says: ['`test/unit/architecture-doc.test.ts` fails on any emit or transaction in an adapter'],
    check: () => {
      expect(read('test/unit/architecture-doc.test.ts')).toContain('const ADAPTERS_WITH_SIDE_EFFECTS: readonly string[] = [];');
      expect(flat(read('docs/architecture.md'))).not.toMatch(/its known exceptions, `[a-z]+\/routes\.ts`/);
    },
  },
  'the two deferred transactions are listReservations and roomContext': {
    doc: 'architecture.md',
    says: ['nothing: `listReservations` and `roomContext`'],
    check: () => {
      // test/unit/architecture-doc.test.ts counts them per file; here: each sits in the function the page names.
      for (const [file, fn] of [
        ['src-main/core/reservations/service.ts', 'listReservations'],
        ['src-main/core/context/service.ts', 'roomContext'],
      ] as const) {
        const src = read(file);
        const at = src.search(new RegExp(`function ${fn}\\b`));
        expect(at, `${fn} in ${file}`).toBeGreaterThan(-1);
        const next = src.slice(at + 1).search(/\n(export )?(async )?function /);
        expect(src.slice(at, next < 0 ? undefined : at + 1 + next)).toContain('.transaction(');
      }
    },
  },
  'the capabilities the page lists are the capability folders of layering.mjs': {
    doc: 'architecture.md',
    says: ['Capabilities today:'],
    check: () => {
      const doc = flat(read('docs/architecture.md'));
      const list = doc.slice(doc.indexOf('Capabilities today:'), doc.indexOf('Inside `wakes/`'));
      const named = new Set([...list.matchAll(/`([a-z]+)`/g)].map((m) => m[1]!));
      // `ui` is the window's live events (ui/live.ts), not a capability of its own on the page.
      expect(Object.keys(CAPABILITIES).filter((c) => c !== 'ui' && !named.has(c))).toEqual([]);
      for (const c of named) if (Object.keys(CAPABILITIES).includes(c)) expect(existsSync(join(ROOT, 'src-main/core', c)), c).toBe(true);
    },
  },
  'the wake pipeline files of wakes/': {
    doc: 'architecture.md',
    says: ['Inside `wakes/`, one wake\'s way from the queue to its end is split by what decides it'],
    check: () => {
      for (const f of ['dispatcher.ts', 'admission.ts', 'runner-run.ts', 'run-workspace.ts', 'spawn-spec.ts', 'sandbox.ts', 'envelope.ts', 'transcript.ts', 'transcript-log.ts']) {
        expect(flat(read('docs/architecture.md'))).toContain(`\`${f}\``);
        expect(existsSync(join(ROOT, 'src-main/core/wakes', f)), f).toBe(true);
      }
    },
  },
  'the base files and the root files are those of layering.mjs': {
    doc: 'architecture.md',
    says: ['(`core.ts` with the Core and its ports, `bus.ts`, `sessions.ts`, `ratelimit.ts`, `paths.ts`, `home-modes.ts`)', '`capabilities.ts`, `assemble.ts`, `start.ts` and `cli.ts`'],
    check: () => {
      const layering = read('src-main/core/layering.mjs');
      expect(layering).toContain("export const BASE_FILES = ['core.ts', 'paths.ts', 'ratelimit.ts', 'home-modes.ts', 'bus.ts', 'sessions.ts'];");
      expect(layering).toContain("export const ROOT_FILES = ['capabilities.ts', 'assemble.ts', 'start.ts', 'cli.ts'];");
    },
  },
  'the table-ownership exceptions are those of layering.mjs': {
    doc: 'architecture.md',
    says: ['The exceptions, each with its reason in `layering.mjs`:'],
    check: () => {
      const doc = flat(read('docs/architecture.md'));
      const part = doc.slice(doc.indexOf('The exceptions, each with its reason in `layering.mjs`'), doc.indexOf("Needs you's own tables"));
      const named = [...part.matchAll(/`([a-z]+\/[a-z-]+\.ts)`/g)].map((m) => m[1]!);
      expect(new Set(named)).toEqual(new Set(TABLE_EXCEPTIONS.map((e) => e.file)));
    },
  },
  'a change of the room bumps context_version with the durable classes of context/service.ts': {
    doc: 'architecture.md',
    says: ['records which durable classes changed'],
    check: () => {
      const doc = flat(read('docs/architecture.md'));
      const part = doc.slice(doc.indexOf('records which durable classes changed'), doc.indexOf('`enqueueWake('));
      expect([...part.matchAll(/`([a-z]+)`/g)].map((m) => m[1])).toEqual([...CONTEXT_CLASSES]);
    },
  },
  'the dispatcher is nudged by the four events the page names': {
    doc: 'architecture.md',
    says: ['(`runners.changed`, `wakes.changed`, `message.created`, `board.changed`; a slow poll stands behind it)'],
    check: () => {
      const src = read('src-main/core/wakes/dispatcher.ts');
      for (const e of ['runners.changed', 'wakes.changed', 'message.created', 'board.changed']) expect(src, e).toContain(`e.type === '${e}'`);
    },
  },
  "the MCP error's fields are ToolErrorBody's, the human API's error ApiErrorBody's": {
    doc: 'architecture.md',
    says: ['`structuredContent.error = {code, reason?, message, http_status, error_id, retryable, retry_after_ms?, details?, doc_url, next_action}`', 'the human API into `{error: {code, message, error_id}}`'],
    check: () => {
      const src = read('shared/errors.ts');
      const body = /export interface ToolErrorBody \{([\s\S]*?)\n\}/.exec(src)![1]!;
      const fields = [...body.matchAll(/^\s+(\w+)(\?)?:/gm)].map((m) => `${m[1]}${m[2] ?? ''}`);
      expect(fields.join(', ')).toBe('code, reason?, message, http_status, error_id, retryable, retry_after_ms?, details?, doc_url, next_action');
      const api = /export interface ApiErrorBody \{\s*error: \{([^}]*)\}/.exec(src)![1]!;
      expect([...api.matchAll(/(\w+):/g)].map((m) => m[1])).toEqual(expect.arrayContaining(['code', 'message', 'error_id']));
    },
  },
  'the tool-listing budgets: core 12,000 and full 24,000 bytes, the whole list under 96 KB (28 KB of JSON)': {
    doc: 'architecture.md',
    says: ['(core 12,000 bytes, full 24,000; docs/core.md, "Tool profiles")', '`ergonomics.test.ts` the whole list under 96 KB'],
    check: () => {
      expect(read('test/integration/tool-profiles.test.ts')).toContain('const BUDGET = { core: 12_000, full: 24_000 } as const;');
      const ergonomics = read('test/integration/ergonomics.test.ts');
      expect(ergonomics).toContain('const TOOLS_LIST_WIRE_BUDGET = 96 * 1024;');
      expect(ergonomics).toContain('const TOOLS_LIST_BUDGET = 28 * 1024;');
      expect(flat(read('docs/testing.md'))).toContain("a full-scope agent's `tools/list` with its annotations is under 28 KB of JSON");
      expect(flat(read('docs/testing.md'))).toContain('the model-visible budgets (core <= 12,000 bytes, full <= 24,000)');
      expect(ergonomics).toMatch(/expect\(lines\.length\)\.toBeLessThanOrEqual\(12\)/);
      expect(flat(read('docs/testing.md'))).toContain('the `initialize` instructions teach the protocol in at most 12 lines');
    },
  },
  'the per-room resources of the window are createRoomResource': {
    doc: 'architecture.md',
    says: ['Every per-room resource of the UI (board, chat, files and deleted files, reservations, workspace, wakes, feedback, members and Trust) is one `createRoomResource`'],
    check: () => {
      const stores = filesUnder('src-renderer/src/stores', (n) => n.endsWith('.ts')).map(read).join('\n');
      // By the names the resources give themselves (the chat's is its messages).
      for (const name of ['board', 'messages', 'files', 'deleted files', 'reservations', 'workspace', 'wakes', 'feedback', 'members', 'Trust']) {
        expect(stores, name).toMatch(new RegExp(`createRoomResource<[^(]*\\(\\{\\s*name: '${name}'`));
      }
    },
  },
  'the UI declares no record shape of its own: a type with an API field (snake_case) is derived from shared/': {
    doc: 'architecture.md',
    says: ['The renderer writes no `/v1` path and no record shape'],
    check: () => {
      // test/unit/contracts-coverage.test.ts checks the paths. A record of the API has snake_case fields; the window's own state is camelCase.
      const OWN: Record<string, string> = {
        'src-renderer/src/api.ts ApiError': 'the error api.ts hands back, the server’s envelope or one it makes itself (OFFLINE, a network failure) with no error_id',
        'src-renderer/src/stores/session.ts LastSignedIn': 'what this browser remembers of who signed in last, in its own storage; no endpoint answers it',
      };
      const found: string[] = [];
      for (const f of filesUnder('src-renderer/src', (n) => /\.tsx?$/.test(n))) {
        for (const m of read(f).matchAll(/(?:interface\s+(\w+)[^{]*|type\s+(\w+)(?:<[^>]*>)?\s*=\s*)\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}/g)) {
          const keys = [...m[3]!.matchAll(/^\s*(?:readonly\s+)?([a-z]+_[a-z0-9_]+)\??\s*:/gm)].map((k) => k[1]);
          if (keys.length && !(`${f} ${m[1] ?? m[2]}` in OWN)) found.push(`${f}: ${m[1] ?? m[2]} {${keys.join(', ')}}`);
        }
      }
      expect(found).toEqual([]);
    },
  },
  'the commands of the suite are the package scripts': {
    doc: 'testing.md',
    says: ['| `npm test` | lint, build, then `vitest run`', '| `npm run test:load` | the long crash-recovery run (8 agents, 20 SIGKILLs, `test/load/run-crash.ts`), then every `load-*` test'],
    check: () => {
      const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
      expect(scripts.test).toBe('npm run lint && npm run build && vitest run');
      expect(scripts['test:load']).toBe('tsx test/load/run-crash.ts && vitest run test/integration/load-*.test.ts');
      expect(scripts.bench).toBeDefined();
      const crash = read('test/load/run-crash.ts');
      expect(crash).toContain("kills: flag('kills', 20)");
      expect(crash).toContain('--workers N (default 8)');
    },
  },
  'two files at once, idle connections kept a minute': {
    doc: 'testing.md',
    says: ['`vitest.config.ts` runs at least two files at once (`maxWorkers`)', 'Test servers keep idle connections for a minute (`httpTimeouts.keepAliveMs`)'],
    check: () => {
      expect(read('vitest.config.ts')).toContain('maxWorkers: Math.max(2, availableParallelism() - 1)');
      // The helper sets the process's keep-alive (read, not done here: this file changes no timeout).
      expect(read('test/helpers/server.ts')).toMatch(/\.keepAliveMs = 60_000;/);
    },
  },
  'the in-process app answers a route that writes its own response with 501 needs_http': {
    doc: 'testing.md',
    says: ['routes that write their own response (the event stream, a streamed export) answer 501 `needs_http`'],
    check: () => {
      const src = read('test/helpers/app.ts');
      expect(src).toContain('httpStatus: 501');
      expect(src).toContain("reason: 'needs_http'");
    },
  },
  'the memory-core tests the page names run openMemoryCore': {
    doc: 'testing.md',
    says: ['`test/unit/evidence-retention.test.ts`, `test/unit/electron-notify.test.ts`, `test/unit/owner-agent-services.test.ts`'],
    check: () => {
      for (const f of ['evidence-retention', 'electron-notify', 'owner-agent-services']) expect(read(`test/unit/${f}.test.ts`), f).toMatch(/\bopenMemoryCore\(/);
    },
  },
  'the two projects: in-process unisolated, isolated the rest, forks, the CLI bundle once, no empty run': {
    doc: 'testing.md',
    says: ['`in-process` (`isolate: false`)', 'Both use `pool: \'forks\'`; `globalSetup` (the CLI bundle) runs once for the run, and a run that finds no test still fails (`passWithNoTests: false`).'],
    check: () => {
      const config = read('vitest.config.ts');
      expect(config).toContain("name: 'in-process', include: IN_PROCESS, isolate: false");
      expect(config).toContain("name: 'isolated', include: ALL");
      expect(config).toContain("pool: 'forks'");
      expect(config).toContain("globalSetup: ['test/helpers/cli-bundle.ts']");
      expect(config).toContain('passWithNoTests: false');
    },
  },
  'the counts of in-process and isolated files': {
    doc: 'testing.md',
    says: ['files are in process ('],
    check: () => {
      const [inProcess, unit, integration, security, serving, isolated] = numbersIn(
        'testing.md',
        /Today ([\d,]+) files are in process \(([\d,]+) of `test\/unit`, ([\d,]+) integration, ([\d,]+) security; ([\d,]+) of them serving, below\) and ([\d,]+) isolated\b/,
      );
      expect({ inProcess, unit, integration, security, serving, isolated }, 'docs/testing.md "Two projects" counts the files: a file added or moved changes them').toEqual(projectCounts());
    },
  },
  'the numbers of the stress files': {
    doc: 'testing.md',
    says: ['`abuse-heap` opens 1,000 sessions', '`load-crash` kills the server 3 times', 'the backup test\'s eight writers each write at most 4 times more per backup taken', '`ui-perf-large` seeds 100,000 messages'],
    check: () => {
      expect(read('test/integration/abuse-heap.test.ts')).toContain('const SESSIONS = 1000;');
      expect(read('test/integration/abuse-heap.test.ts')).toContain('(r.peak - r.baseline) * 0.1');
      expect(read('test/integration/load-crash.test.ts')).toContain('const KILLS = 3;');
      expect(read('test/integration/load-crash.test.ts')).toContain('workers: 4');
      const backup = read('test/integration/backup.test.ts');
      expect(backup).toContain('const BACKUPS = 8;');
      expect(backup).toContain('const PER_BACKUP = 4;');
      expect(backup).toContain('while 8 writers run');
      expect(read('test/e2e/ui-perf-large.test.ts')).toContain('Number(process.env.AR_UI_PERF_MESSAGES ?? 100_000)');
    },
  },
  'the search a freeze test attacks stops at 500 ms': {
    doc: 'testing.md',
    says: ['stops at 500 ms of wall time (`SEARCH_BUDGET_MS`)'],
    check: () => expect(SEARCH_BUDGET_MS).toBe(500),
  },
  'the UI files run one renderer process': {
    doc: 'testing.md',
    says: ["`--renderer-process-limit=1` (`uiForFile(opts, timeout, { oneRenderer: true })`"],
    check: () => {
      const src = read('test/helpers/browser.ts');
      expect(src).toContain("rig.oneRenderer ? ['--renderer-process-limit=1'] : []");
    },
  },
  'the conformance suite: its version and the scenarios it must pass': {
    doc: 'testing.md',
    says: ['`@modelcontextprotocol/conformance@0.1.13` (a devDependency)', 'requires these to pass: `server-initialize`, `ping`, `tools-list`, `server-sse-multiple-streams`, `dns-rebinding-protection`.'],
    check: () => {
      expect((JSON.parse(read('package.json')) as { devDependencies: Record<string, string> }).devDependencies['@modelcontextprotocol/conformance']).toBe('^0.1.13');
      expect(read('test/integration/conformance.test.ts')).toContain("const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'];");
    },
  },
  'slow clients: heads in 20 s checked every 5 s, bodies in 30 s, at most 1 MiB': {
    doc: 'testing.md',
    says: ['request heads must arrive within 20 s (`headersTimeout`, checked every 5 s), request bodies within 30 s (`bodyTimeouts` in `http/body.ts`, 408), bodies are at most 1 MiB on `/mcp` and `/v1` (413)'],
    check: () => {
      // test/integration/limits-http.test.ts drives each bound; here: the figures the page gives are the defaults.
      expect(read('src-main/core/http/server.ts')).toContain('headersMs: 20_000,');
      expect(read('src-main/core/http/server.ts')).toContain('Math.min(5_000, Math.floor(httpTimeouts.headersMs / 4))');
      expect(bodyTimeouts.ms).toBe(30_000);
      expect([API_BODY_LIMIT, MCP_BODY_LIMIT]).toEqual([1024 * 1024, 1024 * 1024]);
    },
  },
};

describe('docs/architecture.md and docs/testing.md say what the code does', () => {
  it.each(NAMED.map((n) => [`${n.doc}: ${n.names.join(', ')} in ${n.file}`, n] as const))('%s', (_, n) => {
    const doc = read(`docs/${n.doc}`);
    for (const name of n.names) {
      expect(new RegExp(`\\b${escapeRe(name)}[\`(.]`).test(doc), `docs/${n.doc} no longer names ${name}`).toBe(true);
      expect(declares(n.file, name), `${n.file} declares ${name}`).toBe(true);
    }
  });

  it.each(Object.entries(STATEMENTS))('%s', (_, s) => {
    const doc = flat(read(`docs/${s.doc}`));
    for (const text of s.says) expect(doc.includes(flat(text)), `docs/${s.doc} no longer says: ${text}`).toBe(true);
    s.check();
  });

  it('tells a declared name from a mention', () => {
    expect(declares('test/unit/docs-statements.test.ts', 'projectCounts')).toBe(true);
    expect(declares('test/unit/docs-statements.test.ts', 'noSuchNameAnywhere')).toBe(false);
    expect(() => numbersIn('testing.md', /There are (\d+) unicorns/)).toThrow(/no longer says/);
  });
});
