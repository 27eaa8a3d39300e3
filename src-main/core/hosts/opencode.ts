/**
 * opencode (docs/hosts.md "opencode"): `connect` writes the room's server into the user's global
 * `opencode.json` (`"mcp"`, a remote server with the credential's header; mode 600); a run is
 * `opencode run --format json` with the prompt on stdin, and gets the room's server, the
 * permission for its tools and the envelope as one more instructions file through
 * `OPENCODE_CONFIG_CONTENT`, which opencode merges over the user's config for that process only.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostInfo } from '../../../shared/hosts.js';
import type { HostAdapter, HostTranscriptEntry, JsonObject, RunHome, UsageState } from './adapter.js';
import { REFUSAL_WORDS, bearerOf, getAt, homeOf, isOtherRoomServer, readJsonLoose, recordOf, refusalWords, writePlanEntry } from './files.js';

const info = hostInfo('opencode')!;

/** opencode's global config folder (`$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`). */
function configDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME || join(homeOf(env), '.config'), 'opencode');
}

/** The global config file connect writes: `opencode.json`, or the user's `opencode.jsonc` when that is the one they keep. */
export function opencodeConfigFile(env: NodeJS.ProcessEnv): string {
  const dir = configDir(env);
  const json = join(dir, 'opencode.json');
  const jsonc = join(dir, 'opencode.jsonc');
  return !existsSync(json) && existsSync(jsonc) ? jsonc : json;
}

/** Every global config file opencode merges (config.json, opencode.json, opencode.jsonc), in its order. */
function userConfigs(env: NodeJS.ProcessEnv): JsonObject[] {
  const dir = configDir(env);
  return ['config.json', 'opencode.json', 'opencode.jsonc'].map((f) => readJsonLoose(join(dir, f))).filter((c): c is JsonObject => c !== undefined);
}

/** A tool of the room's server as opencode names it: `<server>_<tool>`. */
const isRoomTool = (name: unknown, server: string) => typeof name === 'string' && name.startsWith(`${server}_`);

/**
 * What one run merges over the user's config (`OPENCODE_CONFIG_CONTENT`): the room's server with
 * the run's credential read from the environment by opencode itself (`{env:…}`, never written
 * out), the other agents' room servers of the user's config off, `allow` for the room's tools
 * only (after the user's own rules, so a `"*": "ask"` stays for everything else: opencode's
 * last matching rule wins, and `run` rejects what asks), and the envelope as one more
 * instructions file after the user's own.
 */
export function opencodeRunConfig(env: NodeJS.ProcessEnv, server: string, mcpBaseUrl: string, instructionsFile: string): JsonObject {
  const configs = userConfigs(env);
  const mcp: JsonObject = {};
  for (const c of configs) {
    for (const name of Object.keys(recordOf(c.mcp) ?? {})) if (isOtherRoomServer(name, server)) mcp[name] = { type: 'remote', url: 'http://127.0.0.1:9/', enabled: false };
  }
  mcp[server] = { type: 'remote', url: mcpBaseUrl, enabled: true, oauth: false, headers: { Authorization: 'Bearer {env:AGENT_ROOMS_CREDENTIAL}' } };
  // A permission given as one word ("ask") is every tool's rule: kept as `*` before the room's.
  const own = configs.map((c) => c.permission).filter((p) => p !== undefined).pop();
  const permission: JsonObject = typeof own === 'string' ? { '*': own } : {};
  permission[`${server}_*`] = 'allow';
  const instructions = [...new Set(configs.flatMap((c) => (Array.isArray(c.instructions) ? c.instructions.filter((i): i is string => typeof i === 'string') : [])))];
  return { mcp, permission, instructions: [...instructions, instructionsFile] };
}

function runHome(env: NodeJS.ProcessEnv, server: string, mcpBaseUrl: string, instructions: string): RunHome {
  const root = mkdtempSync(join(tmpdir(), 'agent-rooms-opencode-'));
  const file = join(root, 'agent-rooms-wake.md');
  writeFileSync(file, `# Agent Rooms wake\n\n${instructions}\n`, { mode: 0o600 });
  const config = opencodeRunConfig(env, server, mcpBaseUrl, file);
  // An owner's own OPENCODE_CONFIG_CONTENT (in the runner's env) is kept under ours.
  let theirs: JsonObject = {};
  try {
    theirs = recordOf(JSON.parse(env.OPENCODE_CONFIG_CONTENT ?? '')) ?? {};
  } catch {
    theirs = {};
  }
  const merged: JsonObject = { ...theirs, ...config, mcp: { ...(recordOf(theirs.mcp) ?? {}), ...(config.mcp as JsonObject) }, permission: { ...(recordOf(theirs.permission) ?? {}), ...(config.permission as JsonObject) } };
  return {
    env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(merged), OPENCODE_DISABLE_AUTOUPDATE: '1' },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** `opencode run --format json`: the tokens and cost of every `step_finish`, summed; the last `text` the answer. */
export function opencodeUsageEvent(o: Record<string, unknown>, state: UsageState): void {
  const part = recordOf(o.part);
  if (o.type === 'text' && typeof part?.text === 'string' && part.text.trim()) state.answer = part.text.trim();
  if (o.type !== 'step_finish' || !part) return;
  const tokens = recordOf(part.tokens);
  if (!tokens) return;
  const cache = recordOf(tokens.cache);
  const u = state.usage ?? { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cost_usd: null, model: null };
  // opencode's `input` leaves out the cached prompt tokens (as Anthropic reports them): input is input + cache writes, as for Claude Code.
  u.input_tokens = (u.input_tokens ?? 0) + num(tokens.input) + num(cache?.write);
  u.output_tokens = (u.output_tokens ?? 0) + num(tokens.output) + num(tokens.reasoning);
  u.cache_read_tokens = (u.cache_read_tokens ?? 0) + num(cache?.read);
  // opencode prices a model it knows (models.dev); 0 for one it does not: no cost, not a free one.
  if (num(part.cost) > 0) u.cost_usd = (u.cost_usd ?? 0) + num(part.cost);
  state.usage = u;
}

function transcriptEvent(o: Record<string, unknown>): HostTranscriptEntry[] {
  const part = recordOf(o.part);
  if (o.type === 'text' && typeof part?.text === 'string') return [{ kind: 'text', summary: part.text }];
  if (o.type === 'tool_use' && part) {
    const state = recordOf(part.state);
    const tool = typeof part.tool === 'string' ? part.tool : '';
    const out: HostTranscriptEntry[] = [{ kind: 'tool_call', tool, summary: JSON.stringify(state?.input ?? {}) }];
    if (state?.status === 'error') out.push({ kind: 'error', tool, summary: String(state.error ?? 'the tool failed') });
    else if (state?.output !== undefined) out.push({ kind: 'tool_result', tool, summary: typeof state.output === 'string' ? state.output : JSON.stringify(state.output) });
    return out;
  }
  if (o.type === 'error') return [{ kind: 'error', summary: JSON.stringify(o.error ?? o) }];
  return [];
}

export const opencodeAdapter: HostAdapter = {
  ...info,
  version: { min: '1.18.0', checked: '1.18.33', re: /(\d+\.\d+\.\d+)/ },
  // `run` reads the prompt from stdin when no message is given; --format json prints one JSON
  // event per line (step_start, text, tool_use, step_finish with the tokens, error).
  presetDef: { host: 'opencode', command: 'opencode', args: ['run', '--format', 'json'] },
  connectEnv: [
    'OPENCODE_CONFIG',
    'OPENCODE_CONFIG_DIR',
    'XDG_CONFIG_HOME',
    'XDG_DATA_HOME',
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'ANTHROPIC_API_KEY',
    'OPENROUTER_API_KEY',
    'GEMINI_API_KEY',
    'GOOGLE_GENERATIVE_AI_API_KEY',
    'OPENCODE_API_KEY',
    'OPENCODE_DISABLE_MODELS_FETCH',
  ],
  async register({ plan, env, tools }) {
    const file = opencodeConfigFile(env);
    writePlanEntry({ plan, tools }, file);
    const model = userConfigs(env).some((c) => typeof c.model === 'string' && c.model.includes('/'));
    return model ? undefined : `opencode has no model for headless runs: set "model": "provider/model" in ${file} (and the provider), then connect again`;
  },
  configEntry(server, plate, env) {
    const file = opencodeConfigFile(env);
    const e = getAt(readJsonLoose(file), ['mcp', server]);
    if (!e) return undefined;
    const model = userConfigs(env).some((c) => typeof c.model === 'string' && c.model.includes('/'));
    return {
      file,
      credential: bearerOf(e),
      missing: model ? undefined : { what: '"model": "provider/model" (opencode run needs a model)', fix: `set "model" in ${file}, then agent-rooms connect opencode --agent ${plate}` },
    };
  },
  streamFormat(args) {
    const i = args.indexOf('--format');
    return args.includes('run') && (args[i + 1] === 'json' || args.includes('--format=json')) ? 'json-lines' : 'text';
  },
  runHome: (c) => (c.preset ? runHome(c.env, c.server, c.mcpBaseUrl, c.instructions) : { env: {}, cleanup: () => undefined }),
  transcriptEvent,
  usageEvent: opencodeUsageEvent,
  toolsRefused(o, server) {
    // A permission rule of the user's that asks or denies: `run` rejects the call (and exits 0).
    const part = recordOf(o.part);
    const state = recordOf(part?.state);
    if (o.type !== 'tool_use' || !isRoomTool(part?.tool, server) || state?.status !== 'error') return undefined;
    const words = typeof state.error === 'string' ? state.error : '';
    return REFUSAL_WORDS.test(words) ? refusalWords(words) : undefined;
  },
  quirks: [
    'A side request titles the session before the main turn (a small-model call without tools).',
    'Under a permission rule that asks (`"*": "ask"`), `opencode run` rejects the call ("The user rejected permission to use this specific tool call.") and exits 0: the run allows `<server>_*` after the user\'s rules.',
    'The room\'s tools are offered as `<server>_<tool>`.',
    'Offline, a run waits about 20 s before its first model call (models.dev and plugin fetches time out).',
  ],
};
