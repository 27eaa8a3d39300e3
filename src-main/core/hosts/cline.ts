/**
 * Cline CLI (docs/hosts.md "Cline"): `connect` writes the room's server into Cline's MCP settings
 * (`~/.cline/data/settings/cline_mcp_settings.json`, mode 600); a run is `cline -v` with the
 * prompt on a pipe. Cline expands no variables in its settings, so each run gets its own folder
 * (0700, removed after the run): the MCP settings with the room's server and the run's own
 * credential (0600), the user's global rules plus the envelope as one more rule, and the run's
 * session record, from which its tokens are read. `CLINE_SESSION_BACKEND_MODE=local` keeps the
 * run in its own process: otherwise Cline starts a `--cline-hub-daemon` that outlives it.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostInfo } from '../../../shared/hosts.js';
import type { WakeUsage } from '../../../shared/api-types.js';
import type { HostAdapter, JsonObject, RunHome } from './adapter.js';
import { bearerOf, getAt, homeOf, isOtherRoomServer, readJsonLoose, recordOf, refusalWords, writePlanEntry } from './files.js';

const info = hostInfo('cline')!;

/** Cline's config folder (`--config`, `$CLINE_DIR`, else `~/.cline`) and its data folder (`$CLINE_DATA_DIR`, else `<config>/data`). */
function clineDir(env: NodeJS.ProcessEnv): string {
  return env.CLINE_DIR || join(homeOf(env), '.cline');
}

function dataDir(env: NodeJS.ProcessEnv): string {
  return env.CLINE_DATA_DIR || join(clineDir(env), 'data');
}

export function clineMcpFile(env: NodeJS.ProcessEnv): string {
  return env.CLINE_MCP_SETTINGS_PATH || join(dataDir(env), 'settings', 'cline_mcp_settings.json');
}

/** Whether `cline auth` configured a provider (the model a headless run talks to). */
function hasProvider(env: NodeJS.ProcessEnv): boolean {
  const p = readJsonLoose(join(dataDir(env), 'settings', 'providers.json'));
  return Object.keys(recordOf(p?.providers) ?? {}).length > 0 || !!env.CLINE_API_KEY;
}

/** The session record of the run (`<sessions>/<id>/<id>.json`): its tokens, summed over its agents. */
export function clineUsage(record: unknown): WakeUsage | undefined {
  const r = recordOf(record);
  const meta = recordOf(r?.metadata);
  const u = recordOf(meta?.aggregateUsage) ?? recordOf(meta?.usage);
  if (!u) return undefined;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const cost = n(u.totalCost);
  return {
    input_tokens: n(u.inputTokens) + n(u.cacheWriteTokens),
    output_tokens: n(u.outputTokens),
    cache_read_tokens: n(u.cacheReadTokens),
    // Cline prices a model it knows; 0 for one it does not: no cost, not a free one.
    cost_usd: cost > 0 ? cost : null,
    model: typeof r?.model === 'string' ? r.model : null,
  };
}

/** Bigger than any session record of one run. */
const RECORD_MAX_BYTES = 4 * 1024 * 1024;

/** The run's folder, and when it was made (the hub daemons started since are the run's). */
interface ClineRunHome extends RunHome {
  startedAt: number;
}

function runHome(env: NodeJS.ProcessEnv, server: string, mcpBaseUrl: string, instructions: string): ClineRunHome {
  const started = Date.now();
  const root = mkdtempSync(join(tmpdir(), 'agent-rooms-cline-'));
  const userDir = clineDir(env);
  // Every entry of the user's ~/.cline but the rules is a link to the original (hooks, plugins, skills).
  if (existsSync(userDir)) {
    for (const name of readdirSync(userDir)) {
      if (name === 'rules' || name === 'data') continue;
      try {
        symlinkSync(join(userDir, name), join(root, name));
      } catch {
        // one entry that cannot be linked does not stop the run
      }
    }
  }
  const rules = join(root, 'rules');
  mkdirSync(rules, { mode: 0o700 });
  const userRules = join(userDir, 'rules');
  if (existsSync(userRules)) {
    for (const name of readdirSync(userRules)) {
      try {
        symlinkSync(join(userRules, name), join(rules, name));
      } catch {
        // as above
      }
    }
  }
  writeFileSync(join(rules, 'agent-rooms-wake.md'), `# Agent Rooms wake\n\n${instructions}\n`, { mode: 0o600 });
  // The user's servers without the other agents' room servers, and the room's with the run's credential (Cline expands no variables).
  const settings = readJsonLoose(clineMcpFile(env)) ?? {};
  const servers = Object.fromEntries(Object.entries(recordOf(settings.mcpServers) ?? {}).filter(([name]) => !isOtherRoomServer(name, server)));
  servers[server] = { transport: { type: 'streamableHttp', url: mcpBaseUrl, headers: { Authorization: `Bearer ${env.AGENT_ROOMS_CREDENTIAL ?? ''}` } } };
  const mcpFile = join(root, 'cline_mcp_settings.json');
  writeFileSync(mcpFile, JSON.stringify({ ...settings, mcpServers: servers } satisfies JsonObject, null, 2), { mode: 0o600 });
  const sessions = join(root, 'sessions');
  mkdirSync(sessions, { mode: 0o700 });
  return {
    env: {
      CLINE_DIR: root,
      CLINE_DATA_DIR: dataDir(env),
      CLINE_MCP_SETTINGS_PATH: mcpFile,
      CLINE_SESSION_DATA_DIR: sessions,
      CLINE_SESSION_BACKEND_MODE: 'local',
      CLINE_NO_AUTO_UPDATE: '1',
    },
    startedAt: started,
    usage() {
      for (const id of readdirSync(sessions).slice(0, 16)) {
        const file = join(sessions, id, `${id}.json`);
        try {
          if (statSync(file).size > RECORD_MAX_BYTES) continue;
          const u = clineUsage(JSON.parse(readFileSync(file, 'utf8')));
          if (u) return u;
        } catch {
          // not this run's record
        }
      }
      return undefined;
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * Cline's hub daemons (`cline --cline-hub-daemon`) started since the run began under the run's
 * HOME: a run under another backend mode (an owner's own command) may leave one behind, out of
 * the run's process group and without the run's environment (it keeps PATH and HOME only).
 */
export async function clineHubDaemons(home: string | undefined, since: number): Promise<number[]> {
  if (process.platform !== 'linux' || !home) return [];
  let names: string[];
  try {
    names = (await readdir('/proc')).filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const n of names) {
    try {
      const cmd = await readFile(`/proc/${n}/cmdline`, 'utf8');
      if (!cmd.includes('\0--cline-hub-daemon')) continue;
      if ((await stat(`/proc/${n}`)).ctimeMs < since - 1000) continue;
      const env = (await readFile(`/proc/${n}/environ`, 'utf8')).split('\0');
      if (env.includes(`HOME=${home}`)) found.push(Number(n));
    } catch {
      // gone, or another user's
    }
  }
  return found;
}

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

export const clineAdapter: HostAdapter = {
  ...info,
  version: { min: '3.0.65', checked: '3.0.65', re: /(\d+\.\d+\.\d+)/ },
  // The prompt on a pipe (a FIFO: a file, a terminal or the socket a Node child's stdin is fails
  // "interactive mode requires a TTY"; --json takes no stdin); -v prints the tool calls and a closing line with the tokens.
  presetDef: { host: 'cline', command: 'cline', args: ['-v'] },
  stdinPipe: true,
  connectEnv: ['CLINE_DIR', 'CLINE_DATA_DIR', 'CLINE_API_KEY', 'CLINE_MCP_SETTINGS_PATH'],
  async register({ plan, env, tools }) {
    const file = clineMcpFile(env);
    writePlanEntry({ plan, tools }, file);
    return hasProvider(env) ? undefined : 'Cline has no model provider for headless runs: run `cline auth` once, then connect again';
  },
  configEntry(server, plate, env) {
    const file = clineMcpFile(env);
    const e = getAt(readJsonLoose(file), ['mcpServers', server]);
    if (!e) return undefined;
    return {
      file,
      credential: bearerOf(recordOf(e)?.transport),
      missing: hasProvider(env) ? undefined : { what: 'a model provider (cline auth)', fix: `cline auth, then agent-rooms connect cline --agent ${plate}` },
    };
  },
  streamFormat: () => 'text',
  runHome: (c) => (c.preset ? runHome(c.env, c.server, c.mcpBaseUrl, c.instructions) : { env: {}, cleanup: () => undefined }),
  toolsRefusedLine(line, server) {
    // `⎿ error: {"error":"Tool \"<server>__send_message\" requires approval in a TTY session -- …"}`
    const t = line.replace(ANSI, '');
    const m = /Tool \\?"([^"\\]+)\\?" (requires approval[^"\\]*|is disabled by policy|was blocked[^"\\]*)/.exec(t);
    return m && m[1]!.startsWith(`${server}__`) ? refusalWords(`Tool "${m[1]}" ${m[2]}`) : undefined;
  },
  async cleanup({ env, home }) {
    const since = (home as Partial<ClineRunHome> | undefined)?.startedAt;
    if (since === undefined) return;
    for (const pid of await clineHubDaemons(env.HOME, since)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  },
  quirks: [
    'Tools are auto-approved by default (`--auto-approve` true, for every tool: Cline has no per-server approval on its command line); with `--auto-approve false` a headless run refuses every call ("requires approval in a TTY session") and exits 0.',
    'The prompt must come on a pipe; `--json` takes no stdin, so the run reads the `-v` text and the session record.',
    'Without `CLINE_SESSION_BACKEND_MODE=local` every run leaves a `cline --cline-hub-daemon` behind (its own session, PATH and HOME only in its environment).',
    'The room\'s tools are offered as `<server>__<tool>`.',
  ],
};
