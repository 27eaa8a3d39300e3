/**
 * Qwen Code (docs/hosts.md "Qwen Code"): `connect` writes the room's server into
 * `~/.qwen/settings.json` (the credential as `$AGENT_ROOMS_TOKEN_<PLATE>`, its value in
 * `~/.qwen/.env`, mode 600; with the auth type a headless run needs); a run is
 * `qwen -o stream-json --append-system-prompt <envelope>` with the prompt on stdin. Qwen Code
 * expands `$VAR` only in settings files (not in `--mcp-config`), so each run gets its own system
 * settings file (`QWEN_CODE_SYSTEM_SETTINGS_PATH`): the machine's own system settings plus the
 * room's server (the credential as `$AGENT_ROOMS_CREDENTIAL`, `trust: true` on that entry
 * only). Its stream-json is Claude Code's shape (system, assistant, user, result).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostInfo, qwenTokenVar } from '../../../shared/hosts.js';
import type { HostAdapter, JsonObject, RunHome } from './adapter.js';
import { getAt, homeOf, isOtherRoomServer, objectAt, outputFormatIn, readJsonLoose, readSettingsText, recordOf, refusalWords, setAt } from './files.js';
import { RecentCalls } from './recent-calls.js';

const info = hostInfo('qwen')!;

export function qwenSettingsFile(env: NodeJS.ProcessEnv): string {
  return join(homeOf(env), '.qwen', 'settings.json');
}

/** The dotenv file Qwen Code loads at start from the home (when no project folder has its own). */
function qwenEnvFile(env: NodeJS.ProcessEnv): string {
  return join(homeOf(env), '.qwen', '.env');
}

/** The machine's system settings Qwen Code reads when the run does not name its own. */
function systemSettingsFile(env: NodeJS.ProcessEnv): string {
  if (env.QWEN_CODE_SYSTEM_SETTINGS_PATH) return env.QWEN_CODE_SYSTEM_SETTINGS_PATH;
  return process.platform === 'darwin' ? '/Library/Application Support/QwenCode/settings.json' : '/etc/qwen-code/settings.json';
}

/** Qwen Code's auth type for headless runs, from what the user's shell holds. */
function authTypeFrom(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OPENAI_API_KEY) return 'openai';
  if (env.ANTHROPIC_API_KEY) return 'anthropic';
  if (env.GEMINI_API_KEY) return 'gemini';
  return undefined;
}

/** A tool of the room's server as Qwen Code names it: `mcp__<server>__<tool>`. */
const isRoomTool = (name: unknown, server: string) => typeof name === 'string' && name.startsWith(`mcp__${server}__`);

const calls = new RecentCalls();

/** How Qwen Code words a call its approval mode did not let run headless. */
const QWEN_REFUSAL = /\b(denied|declined|rejected|not allowed|requires? (user )?(confirmation|approval)|approval|permission|non-interactive|refused|blocked)\b/i;

/**
 * The run's system settings: the machine's own, the room's server with the run's credential read
 * from the environment (never written out) and `trust: true` on it alone, and the other agents'
 * room servers of the user's settings excluded (the run acts as its own agent only).
 */
export function qwenRunSettings(env: NodeJS.ProcessEnv, server: string, mcpBaseUrl: string): JsonObject {
  const system = readJsonLoose(systemSettingsFile(env)) ?? {};
  const user = readJsonLoose(qwenSettingsFile(env)) ?? {};
  const servers = objectAt(system, 'mcpServers');
  servers[server] = { httpUrl: mcpBaseUrl, headers: { Authorization: 'Bearer $AGENT_ROOMS_CREDENTIAL' }, trust: true };
  const others = Object.keys(recordOf(user.mcpServers) ?? {}).filter((n) => isOtherRoomServer(n, server));
  if (others.length) {
    const mcp = objectAt(system, 'mcp');
    const excluded = [getAt(system, ['mcp', 'excluded']), getAt(user, ['mcp', 'excluded'])].flatMap((v) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []));
    mcp.excluded = [...new Set([...excluded, ...others])];
  }
  return system;
}

function runHome(env: NodeJS.ProcessEnv, server: string, mcpBaseUrl: string): RunHome {
  const root = mkdtempSync(join(tmpdir(), 'agent-rooms-qwen-'));
  const file = join(root, 'system-settings.json');
  writeFileSync(file, JSON.stringify(qwenRunSettings(env, server, mcpBaseUrl), null, 2), { mode: 0o600 });
  return { env: { QWEN_CODE_SYSTEM_SETTINGS_PATH: file }, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export const qwenAdapter: HostAdapter = {
  ...info,
  version: { min: '0.15.10', checked: '0.15.10', re: /(\d+\.\d+\.\d+)/ },
  // The prompt on stdin (no positional prompt); -o stream-json: Claude Code's event shape, whose
  // result event carries the tokens (usage.ts reads it as Claude Code's).
  presetDef: { host: 'qwen', command: 'qwen', args: ['-o', 'stream-json', '--append-system-prompt', '{wake_instructions}'] },
  connectEnv: ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', 'ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'GEMINI_API_KEY', 'DASHSCOPE_API_KEY', 'QWEN_CODE_SYSTEM_SETTINGS_PATH'],
  async register({ plan, env, tools }) {
    const file = qwenSettingsFile(env);
    const w = plan.writes.find((x) => x.json)!.json!;
    const line = plan.writes.find((x) => x.envLine)!.envLine!;
    let problem: string | undefined;
    // settings.json names the credential's variable only: Qwen Code rewrites that file (its
    // `$version` migration, any setting saved) through a temporary file readable by all.
    tools.mergeJson(file, (c) => {
      setAt(c, w.path, w.value);
      const auth = objectAt(objectAt(c, 'security'), 'auth');
      if (!auth.selectedType) {
        const t = authTypeFrom(env);
        if (t) {
          auth.selectedType = t;
          tools.out(`set security.auth.selectedType = "${t}" (Qwen Code needs an auth type for headless runs)`);
        } else {
          problem = 'Qwen Code has no auth type for headless runs: set OPENAI_API_KEY (and OPENAI_BASE_URL, OPENAI_MODEL) or run `qwen auth` once, then connect again';
        }
      }
    });
    tools.setEnvLine(qwenEnvFile(env), line.name, line.value);
    tools.out(`wrote ${plan.server} into ${file}; its token variable ${line.name} is set in ${qwenEnvFile(env)} (mode 600, Qwen Code loads it at start)`);
    return problem;
  },
  configEntry(server, plate, env) {
    const settings = readJsonLoose(qwenSettingsFile(env));
    const e = getAt(settings, ['mcpServers', server]);
    if (!e) return undefined;
    const file = qwenEnvFile(env);
    const tokenVar = qwenTokenVar(plate);
    const line = (readSettingsText(file) ?? '').split('\n').find((l) => l.startsWith(`${tokenVar}=`) || l.startsWith(`export ${tokenVar}=`));
    const selected = getAt(settings, ['security', 'auth', 'selectedType']);
    return {
      file,
      credential: line?.slice(line.indexOf('=') + 1).trim().replace(/^['"]|['"]$/g, ''),
      missing: selected ? undefined : { what: 'security.auth.selectedType (Qwen Code needs an auth type for headless runs)', fix: `set OPENAI_API_KEY (or run qwen auth), then agent-rooms connect qwen --agent ${plate}` },
    };
  },
  streamFormat(args) {
    return outputFormatIn(args, true) === 'stream-json' ? 'claude-stream-json' : 'text';
  },
  runHome: (c) => (c.preset ? runHome(c.env, c.server, c.mcpBaseUrl) : { env: {}, cleanup: () => undefined }),
  toolsRefused(o, server) {
    const content = recordOf(o.message)?.content;
    if (!Array.isArray(content)) return undefined;
    for (const c of content.map(recordOf)) {
      if (!c) continue;
      if (o.type === 'assistant' && c.type === 'tool_use') calls.note(c.id, c.name);
      if (o.type === 'user' && c.type === 'tool_result' && c.is_error === true && isRoomTool(calls.tool(c.tool_use_id), server)) {
        const words = typeof c.content === 'string' ? c.content : JSON.stringify(c.content ?? '');
        if (QWEN_REFUSAL.test(words)) return refusalWords(words);
      }
    }
    return undefined;
  },
  quirks: [
    'MCP tools are deferred: the model loads a schema with `tool_search` (`select:mcp__<server>__send_message`) before calling it.',
    'Qwen Code has a `send_message` tool of its own (for its background tasks): the room\'s is `mcp__<server>__send_message`.',
    '`--mcp-config` does not expand `$VAR`: the run\'s server goes into a per-run system settings file instead.',
    'Without `"trust": true` on the server entry a headless run cannot call its tools (no one can confirm them).',
    'It rewrites settings.json (its `$version` migration on the first run, any setting saved) through a temporary file readable by all: no credential is kept there.',
    'Version 0.24 and later need a newer Node than 20.',
  ],
};

