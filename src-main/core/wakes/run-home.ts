import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WakeEnvelope } from './envelope.js';
import { parseLenientObject } from '../util/lenient-json.js';

/**
 * What the woken model is told about where it is: the envelope as a system-prompt addition
 * (docs/contract.md "Wakes"). The content itself reaches the model untouched, on stdin.
 */
export function wakeInstructions(e: WakeEnvelope, server: string): string {
  const lines = [
    'You were woken by Agent Rooms, a shared room where agents and humans coordinate work.',
    `- room: ${e.room}`,
    // In backticks: Gemini CLI reads `@name` in its context file as a file import.
    `- you are: \`${e.handle}\` (plate ${e.plate})`,
    `- trigger: ${e.trigger}`,
    `- wake id: ${e.wake_id}`,
    ...(e.task_id ? [`- task id: ${e.task_id}`] : []),
    ...(e.message_id ? [`- message id: ${e.message_id}`] : []),
    ...(e.message_ids ? [`- message ids (several messages, separated by lines "---"): ${e.message_ids.join(', ')}`] : []),
    `- context version: ${e.context_version}`,
    ...(e.worktree
      ? [
          `- working folder: ${e.worktree.path}, a git worktree of its own for this task, on branch ${e.worktree.branch} (made from ${e.worktree.base_branch} at ${e.worktree.base_commit.slice(0, 12)}). Do the task's work there; what you leave uncommitted is committed on that branch when the run ends, and a human reviews it before it reaches ${e.worktree.base_branch}.`,
        ]
      : e.task_id && e.worktree_reason
        ? [`- working folder: the current folder (no worktree: ${e.worktree_reason})`]
        : []),
    `The user turn is the ${e.trigger === 'mention' ? 'message' : 'task'} exactly as it was written in the room${e.trigger === 'mention' && e.task_id ? ` (a message about task ${e.task_id})` : ''}.`,
    `Act in that room with the tools of the MCP server "${server}" (pass room "${e.room}"): answer with send_message${
      e.task_id ? ', and report task progress with set_status or complete_task' : ''
    }. Work that is only in your reply text is not seen by anyone in the room.`,
  ];
  return lines.join('\n');
}

/**
 * The room's servers of other agents that a host's own settings hold (what `agent-rooms connect` wrote
 * for them): a woken agent reaches the room as itself only, so a run leaves them out (docs/hosts.md).
 */
function isOtherRoomServer(name: string, server: string): boolean {
  return name.startsWith('agent-rooms-') && name !== server;
}

/** Larger than any settings file a user writes by hand; a bigger one is not read. */
const SETTINGS_MAX_BYTES = 1024 * 1024;

function readSettingsText(file: string): string | undefined {
  try {
    if (statSync(file).size > SETTINGS_MAX_BYTES) return undefined;
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * `-c` overrides that turn off, for one Codex run, the other agents' room servers in the user's
 * `config.toml` (Codex has no flag to use only the servers given on the command line).
 */
export function codexOtherServerArgs(env: NodeJS.ProcessEnv, server: string): string[] {
  const text = readSettingsText(join(env.CODEX_HOME || join(env.HOME || homedir(), '.codex'), 'config.toml'));
  if (!text) return [];
  const names = new Set<string>();
  for (const m of text.matchAll(/^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*(?:"([^"\n]+)"|'([^'\n]+)'|([A-Za-z0-9_-]+))/gm)) names.add((m[1] ?? m[2] ?? m[3])!);
  return [...names]
    .filter((n) => isOtherRoomServer(n, server) && /^[A-Za-z0-9_-]+$/.test(n))
    .flatMap((n) => ['-c', `mcp_servers.${n}.enabled=false`]);
}

export interface RunHome {
  /** Environment additions for the run. */
  env: Record<string, string>;
  /** Removes the per-run folder (never the user's own files, which are only linked). */
  cleanup(): void;
}

/** The user's settings, read as Gemini CLI reads them (comments and trailing commas allowed). */
function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const p = parseLenientObject(readFileSync(path, 'utf8'));
    return 'error' in p ? undefined : p.value;
  } catch {
    return undefined;
  }
}

/**
 * Gemini CLI reads MCP servers from settings files only. Rather than edit the user's global
 * settings, each run gets its own GEMINI_CLI_HOME: `.gemini/settings.json` is the user's own
 * settings plus the room's server (trust: true on that entry only, headers reading the
 * credential from the environment), `.gemini/GEMINI.md` the user's global context plus the
 * wake's envelope, and every other entry of the user's `~/.gemini` (sign-in, accounts,
 * trusted folders) a symlink to the original.
 */
export function geminiRunHome(opts: { env: NodeJS.ProcessEnv; server: string; mcpBaseUrl: string; instructions: string }): RunHome {
  const userHome = opts.env.GEMINI_CLI_HOME || opts.env.HOME || homedir();
  const userDir = join(userHome, '.gemini');
  const root = mkdtempSync(join(tmpdir(), 'agent-rooms-gemini-'));
  const dir = join(root, '.gemini');
  mkdirSync(dir, { mode: 0o700 });
  const own = new Set(['settings.json', 'GEMINI.md']);
  if (existsSync(userDir)) {
    for (const name of readdirSync(userDir)) {
      if (own.has(name)) continue;
      try {
        symlinkSync(join(userDir, name), join(dir, name));
      } catch {
        // one entry that cannot be linked does not stop the run
      }
    }
  }
  const settings = readJson(join(userDir, 'settings.json')) ?? {};
  const servers = (settings.mcpServers && typeof settings.mcpServers === 'object' ? settings.mcpServers : {}) as Record<string, unknown>;
  settings.mcpServers = {
    ...Object.fromEntries(Object.entries(servers).filter(([name]) => !isOtherRoomServer(name, opts.server))),
    [opts.server]: { httpUrl: opts.mcpBaseUrl, headers: { Authorization: 'Bearer ${AGENT_ROOMS_CREDENTIAL}' }, trust: true },
  };
  writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings, null, 2), { mode: 0o600 });
  let memory = '';
  try {
    memory = readFileSync(join(userDir, 'GEMINI.md'), 'utf8') + '\n\n';
  } catch {
    // no global context of the user's
  }
  writeFileSync(join(dir, 'GEMINI.md'), `${memory}# Agent Rooms wake\n\n${opts.instructions}\n`, { mode: 0o600 });
  return {
    env: { GEMINI_CLI_HOME: root },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
