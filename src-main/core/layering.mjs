/**
 * The layering of the core, as data: which folder of src-main/core may import which, and which
 * capability owns each table. ESLint's `local/code-layering` rule (scripts/eslint/code-layering.mjs, registered in
 * eslint.config.js) fails an import outside the allowed graph and an allowed graph with a cycle;
 * test/unit/table-ownership.test.ts fails SQL that names a table outside its owner's folder;
 * scripts/import-graph.mjs prints the graph as it is. docs/architecture.md shows all of it.
 *
 * To change the layering, edit this file, never silence the rule: a capability that needs
 * something of a capability above it gets it through a port in `core.ports` (core.ts CorePorts),
 * given by capabilities.ts, so the lower one never imports the upper one.
 */

/** Root files every folder may import: the Core, its parts and plain helpers. */
export const BASE_FILES = ['core.ts', 'paths.ts', 'ratelimit.ts', 'home-modes.ts', 'bus.ts', 'sessions.ts'];

/**
 * The desktop shell (src-main/electron/) talks to the core through its public entry only:
 * start.ts (startCore, RunningCore and what it re-exports), beside shared/. eslint.config.js
 * refuses any other import of src-main/core/ from there (test/unit/layering.test.ts).
 */
export const SHELL_ENTRY = 'start.ts';
export const SHELL_IMPORT_RULE = {
  regex: '^(\\.\\./)+core/(?!start\\.js$)',
  message: 'The desktop shell talks to the core through its public entry only: import src-main/core/start.ts (or shared/), never a file inside the core (docs/architecture.md "Services").',
};

/** Root files that put the core together and may import everything; nothing imports them. */
export const ROOT_FILES = ['capabilities.ts', 'assemble.ts', 'start.ts', 'cli.ts'];

/**
 * The infrastructure below every capability, bottom first: each may import the ones listed.
 * errors is the one error type (every layer throws it); evidence is the store of failures
 * that the transports (http, mcp) write.
 */
export const INFRASTRUCTURE = {
  errors: [],
  util: ['errors'],
  db: ['errors', 'util'],
  auth: ['errors', 'util'],
  '(base)': ['errors', 'util', 'db', 'auth'],
  evidence: ['(base)', 'errors', 'util', 'db'],
  idempotency: ['errors', 'util', 'db'],
  http: ['(base)', 'errors', 'util', 'auth', 'evidence'],
  // db: whether a call's answer leaves over HTTP this turn (db/open.ts answerLeavesThisTurn), a fact of the connection's writes.
  mcp: ['(base)', 'errors', 'util', 'db', 'auth', 'evidence', 'http'],
  usecase: ['(base)', 'errors', 'util', 'auth', 'evidence', 'http', 'mcp'],
};

/**
 * Each capability and the capabilities it may import (every capability may import all of the
 * infrastructure). Ordered so that each imports only capabilities above it in this list.
 */
export const CAPABILITIES = {
  hosts: [],
  owners: [],
  agents: ['owners'],
  rooms: ['agents', 'owners'],
  workspace: ['rooms'],
  worktrees: [],
  inbox: ['agents', 'owners', 'rooms'],
  wakes: ['agents', 'hosts', 'owners', 'rooms', 'workspace'],
  addressing: ['agents', 'owners', 'rooms'],
  identity: ['agents', 'inbox'],
  search: ['rooms'],
  messages: ['addressing', 'agents', 'inbox', 'owners', 'rooms', 'search', 'wakes'],
  files: ['rooms', 'search'],
  tasks: ['addressing', 'agents', 'inbox', 'owners', 'rooms', 'wakes'],
  reservations: ['agents', 'rooms', 'tasks', 'wakes', 'workspace', 'worktrees'],
  review: ['agents', 'messages', 'owners', 'reservations', 'rooms', 'tasks', 'wakes', 'workspace'],
  context: ['agents', 'files', 'reservations', 'rooms', 'tasks', 'workspace'],
  feedback: ['agents', 'rooms', 'tasks'],
  events: ['rooms'],
  ui: ['rooms'],
  backup: ['files', 'owners'],
  needs: ['agents', 'messages', 'rooms', 'tasks', 'wakes'],
};

/** The allowed graph: node -> the nodes it may import ('(root)' may import everything). */
export const ALLOWED = {
  ...INFRASTRUCTURE,
  ...Object.fromEntries(Object.entries(CAPABILITIES).map(([cap, caps]) => [cap, [...Object.keys(INFRASTRUCTURE), ...caps]])),
};

/**
 * Type-only imports count like any other (they tie two folders together just the same); none
 * is exempt today. An entry here would be `{ from, to, reason }`.
 */
export const TYPE_ONLY_EXCEPTIONS = [];

/** Which capability's folder owns each table: only that folder's code names it in SQL. */
export const TABLE_OWNERS = {
  owners: 'owners',
  login_links: 'owners',
  ui_sessions: 'owners',
  agents: 'agents',
  devices: 'agents',
  credentials: 'agents',
  rooms: 'rooms',
  room_humans: 'rooms',
  room_agents: 'rooms',
  room_trust: 'rooms',
  room_changes: 'rooms',
  messages: 'messages',
  message_legacy_ids: 'messages',
  mentions: 'inbox',
  mention_legacy_ids: 'inbox',
  idempotency: 'idempotency',
  evidence: 'evidence',
  wakes: 'wakes',
  wake_legacy_ids: 'wakes',
  runners: 'wakes',
  wake_transcripts: 'wakes',
  task_reviews: 'review',
  tasks: 'tasks',
  task_deps: 'tasks',
  task_handoffs: 'tasks',
  task_events: 'tasks',
  files: 'files',
  file_versions: 'files',
  deleted_files: 'files',
  deleted_file_blobs: 'files',
  room_workspaces: 'workspace',
  room_focus: 'context',
  room_decisions: 'context',
  feedback_consent: 'feedback',
  error_reports: 'feedback',
  task_feedback: 'feedback',
  product_feedback: 'feedback',
  path_reservations: 'reservations',
  reservation_releases: 'reservations',
  search_fts: 'search',
  human_mentions: 'needs',
  needs_dismissals: 'needs',
  search_progress: 'search',
};

/** Files that may name tables of other capabilities, each with its reason (keep this list short). */
export const TABLE_EXCEPTIONS = [
  {
    file: 'backup/export.ts',
    tables: '*',
    reason: 'exports a whole room as portable JSON lines: every table of the room, as stored, from homes of any schema version',
  },
  {
    file: 'backup/verify.ts',
    tables: ['file_versions'],
    reason: 'runs in a worker thread on a backup copy (its own connection, no store loaded): lists the blobs the copy references and counts its rooms, messages, tasks and files',
  },
  {
    file: 'search/service.ts',
    tables: ['messages', 'tasks', 'room_decisions', 'files', 'file_versions'],
    reason: 'the index is kept by triggers on its sources (migration 0009) and addresses them by rowid: a hit is resolved to its source row by that rowid',
  },
  {
    file: 'needs/service.ts',
    tables: ['agents', 'messages', 'room_humans', 'task_deps', 'tasks', 'wakes'],
    reason:
      'Needs you reads what waits on a human across all the rooms they joined in one indexed query per kind (docs/needs-you.md): a store call per room or per record would make its work grow with the rooms another owner can add',
  },
  {
    file: 'search/indexer.ts',
    tables: ['messages'],
    reason: 'indexes messages in batches after their transaction (migration 0011), by rowid after its mark: it reads the rows it indexes',
  },
];

const show = (node) => (node.startsWith('(') ? node : `${node}/`);
const code = (node) => `\`${show(node)}\``;

/** The allowed graph as docs/architecture.md shows it (test/unit/layering.test.ts keeps the two the same). */
export function allowedGraphMarkdown() {
  const rows = ['| folder | may import |', '| --- | --- |'];
  for (const [node, deps] of Object.entries(INFRASTRUCTURE)) rows.push(`| ${code(node)} | ${deps.map(code).join(', ') || 'nothing of the core'} |`);
  for (const [cap, deps] of Object.entries(CAPABILITIES)) rows.push(`| ${code(cap)} | the infrastructure${deps.length ? ', ' + deps.map(code).join(', ') : ''} |`);
  rows.push(`| \`(root)\`: ${ROOT_FILES.join(', ')} | everything |`);
  return rows.join('\n');
}

/** The table owners as docs/architecture.md shows them. */
export function tableOwnersMarkdown() {
  const byOwner = new Map();
  for (const [table, owner] of Object.entries(TABLE_OWNERS)) byOwner.set(owner, [...(byOwner.get(owner) ?? []), table]);
  const rows = ['| folder | tables |', '| --- | --- |'];
  for (const [owner, tables] of byOwner) rows.push(`| ${code(owner)} | ${tables.join(', ')} |`);
  return rows.join('\n');
}

/** The node of a path relative to src-main/core ('rooms/store.ts' -> 'rooms', 'core.ts' -> '(base)'). */
export function folderOf(rel) {
  const parts = rel.split('/');
  if (parts.length > 1) return parts[0];
  if (BASE_FILES.includes(parts[0])) return '(base)';
  if (ROOT_FILES.includes(parts[0])) return '(root)';
  return `(unplaced root file ${parts[0]})`;
}

/** The cycles of a graph (node -> nodes it imports): each strongly connected group of more than one node, sorted. */
export function findCycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const out = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph[v] ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (graph[v] ?? []).includes(v)) out.push(group.sort());
    }
  };
  for (const v of Object.keys(graph).sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}
