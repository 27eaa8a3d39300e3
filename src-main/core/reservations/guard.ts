import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { defaultHome } from '../paths.js';
import { getRoom } from '../rooms/store.js';
import { workspacesWithFolder } from '../workspace/store.js';
import { gitHooksDir } from '../worktrees/git.js';

/**
 * `agent-rooms guard install [--room ID] [--home DIR] [--force]`: writes a git pre-commit
 * hook into the room workspace's repository (its `local_path`). The hook asks the running
 * server whether a staged path is exclusively reserved by another agent and refuses the
 * commit naming the holders. It holds no secret: the committer is identified at commit
 * time from the environment (AGENT_ROOMS_CREDENTIAL, else AGENT_ROOMS_PLATE), and a server
 * that is not running never blocks a commit.
 */

export const GUARD_MARKER = 'agent-rooms guard: pre-commit';
/** The checker beside the hook; .cjs so it runs whatever the repository's package.json says about modules. */
const CHECKER = 'agent-rooms-guard.cjs';

export const GUARD_USAGE = `  agent-rooms guard install [--room ID] [--home DIR] [--force]
      Write a git pre-commit hook into the room workspace's repository that refuses commits
      touching paths another agent reserved exclusively (--no-verify skips it).`;

interface GuardFlags {
  room?: string;
  home?: string;
  force: boolean;
}

function parseGuardFlags(argv: string[]): GuardFlags {
  const f: GuardFlags = { force: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [name, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${name} needs a value`);
      return v;
    };
    if (name === '--room') f.room = value();
    else if (name === '--home') f.home = value();
    else if (name === '--force') f.force = true;
    else throw new Error(`unknown option ${a}`);
  }
  return f;
}

/** The rooms of this home whose workspace has a local folder. */
function workspaces(home: string): Array<{ room_id: string; name: string; local_path: string }> {
  const file = join(home, 'rooms.db');
  if (!existsSync(file)) throw new Error(`no Agent Rooms data in ${home} (start it once with: agent-rooms serve)`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return workspacesWithFolder(db)
      .flatMap((w) => {
        const room = getRoom(db, w.room_id);
        return room ? [{ room_id: w.room_id, name: room.name, local_path: w.local_path, created_at: room.created_at }] : [];
      })
      .sort((a, b) => a.created_at - b.created_at)
      .map(({ room_id, name, local_path }) => ({ room_id, name, local_path }));
  } finally {
    db.close();
  }
}

/** The checker the hook runs: a small CommonJS program (.cjs, whatever the repository's module type) with the room id and data home filled in, and nothing secret. */
export function checkerScript(roomId: string, home: string): string {
  return `// ${GUARD_MARKER} checker, written by \`agent-rooms guard install\`. It holds no secret.
// Refuses a commit whose staged paths another agent reserved exclusively in the room;
// \`git commit --no-verify\` skips it, and a server that is not running never blocks.
const ROOM = ${JSON.stringify(roomId)};
const HOME = ${JSON.stringify(home)};
const BATCH = 2000;
const { execFileSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

function warn(msg) {
  process.stderr.write('agent-rooms guard: ' + msg + '; commit allowed\\n');
  process.exit(0);
}

function serverUrl() {
  const env = process.env.AGENT_ROOMS_URL || process.env.AGENT_ROOMS_MCP_BASE_URL;
  if (env) {
    try {
      return new URL(env).origin;
    } catch {}
  }
  try {
    return 'http://127.0.0.1:' + JSON.parse(readFileSync(join(HOME, 'server.json'), 'utf8')).port;
  } catch {
    return undefined;
  }
}

async function ask(base, paths, credential) {
  const headers = { 'content-type': 'application/json' };
  if (credential) headers.authorization = 'Bearer ' + credential;
  const res = await fetch(base + '/v1/rooms/' + encodeURIComponent(ROOM) + '/reservations/check', {
    method: 'POST',
    headers,
    body: JSON.stringify({ paths, plate: process.env.AGENT_ROOMS_PLATE || undefined }),
    signal: AbortSignal.timeout(5000),
  });
  return { status: res.status, body: await res.json().catch(() => ({})) };
}

(async () => {
  let staged;
  try {
    staged = execFileSync('git', ['diff', '--cached', '--name-only', '--no-renames', '-z'], { encoding: 'utf8' }).split('\\0').filter(Boolean);
  } catch {
    warn('could not list the staged paths');
  }
  if (!staged.length) process.exit(0);
  const base = serverUrl();
  if (!base) warn('no running Agent Rooms server found (' + join(HOME, 'server.json') + ')');
  let credential = process.env.AGENT_ROOMS_CREDENTIAL;
  const hits = [];
  for (let i = 0; i < staged.length; i += BATCH) {
    let r;
    try {
      r = await ask(base, staged.slice(i, i + BATCH), credential);
      // A stale or revoked credential must not let the commit through unchecked: ask as AGENT_ROOMS_PLATE.
      if (r.status === 401 && credential) {
        credential = undefined;
        r = await ask(base, staged.slice(i, i + BATCH), undefined);
      }
    } catch (e) {
      warn('the Agent Rooms server at ' + base + ' is not reachable (' + (e && e.name === 'TimeoutError' ? 'timeout' : 'not running') + ')');
    }
    if (r.status !== 200) warn('the server could not check the reservations (HTTP ' + r.status + (r.body && r.body.error ? ': ' + r.body.error.message : '') + ')');
    hits.push(...(r.body.conflicts || []));
  }
  if (!hits.length) process.exit(0);
  // Without a credential the server says only which paths are reserved, not by whom.
  const lines = hits.map((h) => '  ' + h.path + (h.holder ? '  reserved by ' + h.holder + ' (' + h.pattern + ', until ' + h.expires_at + ')' : '  reserved by another agent'));
  process.stderr.write(
    'agent-rooms guard: commit refused: staged paths are reserved exclusively by another agent:\\n' +
      lines.join('\\n') +
      '\\nAsk the holder to release them, or reserve_paths with wait: true. git commit --no-verify skips this check.\\n',
  );
  process.exit(1);
})();
`;
}

/** The pre-commit hook itself: a POSIX shell line that runs the checker beside it. */
export function hookScript(): string {
  return `#!/bin/sh
# ${GUARD_MARKER} hook, written by \`agent-rooms guard install\`; \`git commit --no-verify\` skips it.
exec node "$(dirname "$0")/${CHECKER}"
`;
}

export interface InstallResult {
  hook: string;
  room: string;
  backup?: string;
}

/** Installs the hook; refuses to replace a pre-commit hook it did not write unless `force` (then it keeps a backup). */
export async function installGuard(home: string, roomId: string | undefined, force: boolean): Promise<InstallResult> {
  const ws = workspaces(home);
  let w: (typeof ws)[number] | undefined;
  if (roomId) {
    w = ws.find((x) => x.room_id === roomId);
    if (!w) throw new Error(`room ${roomId} has no workspace with a local folder; set one in the room's Workspace tab`);
  } else if (ws.length === 1) {
    w = ws[0];
  } else if (ws.length === 0) {
    throw new Error('no room has a workspace with a local folder; set one in a room\'s Workspace tab first');
  } else {
    throw new Error(`several rooms have a workspace; pick one with --room:\n${ws.map((x) => `  ${x.room_id}  ${x.name}  ${x.local_path}`).join('\n')}`);
  }
  const dir = await gitHooksDir(w!.local_path);
  mkdirSync(dir, { recursive: true });
  const hook = join(dir, 'pre-commit');
  let backup: string | undefined;
  if (existsSync(hook) && !readFileSync(hook, 'utf8').includes(GUARD_MARKER)) {
    if (!force) throw new Error(`${hook} exists and was not written by agent-rooms; rerun with --force to replace it (a backup is kept)`);
    backup = `${hook}.before-agent-rooms`;
    renameSync(hook, backup);
  }
  writeFileSync(join(dir, CHECKER), checkerScript(w!.room_id, resolve(home)), { mode: 0o644 });
  writeFileSync(hook, hookScript(), { mode: 0o755 });
  chmodSync(hook, 0o755);
  return { hook, room: w!.room_id, ...(backup ? { backup } : {}) };
}

/** The `guard` command of the CLI. */
export async function guardCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub !== 'install') throw new Error(`usage:\n${GUARD_USAGE}`);
  const f = parseGuardFlags(rest);
  const r = await installGuard(f.home ?? defaultHome(), f.room, f.force);
  process.stdout.write(`pre-commit guard installed for room ${r.room}: ${r.hook}\n`);
  if (r.backup) process.stdout.write(`the previous hook was kept as ${r.backup}\n`);
  process.stdout.write('agents commit with AGENT_ROOMS_CREDENTIAL (or AGENT_ROOMS_PLATE) set; git commit --no-verify skips the check\n');
}
