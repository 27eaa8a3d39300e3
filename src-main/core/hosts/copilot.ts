/**
 * GitHub Copilot CLI (docs/hosts.md "GitHub Copilot CLI"): `connect` writes the room's server into
 * `~/.copilot/mcp-config.json` (`$COPILOT_HOME`; mode 600); a run is `copilot --output-format json`
 * with the prompt on stdin, the room's server given for that run by `--additional-mcp-config`
 * (the credential as `${AGENT_ROOMS_CREDENTIAL}`, which Copilot expands), `--allow-tool <server>`
 * for its tools only, the envelope as a custom-instructions file of a per-run folder, and the
 * tokens read from the `--usage-output-file` Copilot writes there (its JSON events carry none).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostInfo } from '../../../shared/hosts.js';
import type { WakeUsage } from '../../../shared/api-types.js';
import type { HostAdapter, HostTranscriptEntry, RunHome, UsageState } from './adapter.js';
import { REFUSAL_WORDS, bearerOf, getAt, homeOf, isOtherRoomServer, readJsonLoose, recordOf, refusalWords, writePlanEntry } from './files.js';
import { RecentCalls } from './recent-calls.js';

const info = hostInfo('copilot')!;

function copilotHome(env: NodeJS.ProcessEnv): string {
  return env.COPILOT_HOME || join(homeOf(env), '.copilot');
}

export function copilotConfigFile(env: NodeJS.ProcessEnv): string {
  return join(copilotHome(env), 'mcp-config.json');
}

/** The run's server as `--additional-mcp-config` takes it (Copilot expands `${VAR}` in headers). */
const RUN_MCP_CONFIG = JSON.stringify({ mcpServers: { '{server}': { type: 'http', url: '{mcp_base_url}', headers: { Authorization: 'Bearer ${AGENT_ROOMS_CREDENTIAL}' }, tools: ['*'] } } });

/** A tool of the room's server as Copilot names it: `<server>-<tool>`. */
const isRoomTool = (name: unknown, server: string) => typeof name === 'string' && name.startsWith(`${server}-`);

/** The calls a run's events named (tool.execution_start), for the refusal that names only the call's id. */
const calls = new RecentCalls();

/** What a headless run can reach a model with: Copilot's own sign-in, a token variable, or a provider of the user's (BYOK). */
function modelAccess(env: NodeJS.ProcessEnv): boolean {
  if (env.COPILOT_PROVIDER_BASE_URL || env.COPILOT_GITHUB_TOKEN || env.GH_TOKEN || env.GITHUB_TOKEN) return true;
  const config = readJsonLoose(join(copilotHome(env), 'config.json'));
  return Array.isArray(config?.logged_in_users) && config.logged_in_users.length > 0;
}

/** `--usage-output-file`'s JSON: the tokens per model (`modelMetrics`), summed. */
export function copilotUsage(text: string): WakeUsage | undefined {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return undefined;
  }
  const metrics = recordOf(recordOf(o)?.modelMetrics);
  if (!metrics) return undefined;
  const u: WakeUsage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cost_usd: null, model: null };
  const models: string[] = [];
  for (const [model, m] of Object.entries(metrics)) {
    const usage = recordOf(recordOf(m)?.usage);
    if (!usage) continue;
    models.push(model);
    const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
    u.input_tokens! += n(usage.inputTokens);
    u.output_tokens! += n(usage.outputTokens);
    u.cache_read_tokens! += n(usage.cacheReadTokens);
  }
  if (!models.length) return undefined;
  u.model = models.join(',');
  return u;
}

/** Bigger than any usage file Copilot writes. */
const USAGE_MAX_BYTES = 1024 * 1024;

function runHome(env: NodeJS.ProcessEnv, instructions: string): RunHome {
  const root = mkdtempSync(join(tmpdir(), 'agent-rooms-copilot-'));
  const dir = join(root, '.github', 'instructions');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Copilot reads `*.instructions.md` of COPILOT_CUSTOM_INSTRUCTIONS_DIRS as the session's own instructions; `applyTo` makes it apply to the run.
  writeFileSync(join(dir, 'agent-rooms-wake.instructions.md'), `---\napplyTo: "**"\n---\n# Agent Rooms wake\n\n${instructions}\n`, { mode: 0o600 });
  const usageFile = join(root, 'usage.json');
  const dirs = [env.COPILOT_CUSTOM_INSTRUCTIONS_DIRS, root].filter(Boolean).join(',');
  return {
    env: { COPILOT_CUSTOM_INSTRUCTIONS_DIRS: dirs, COPILOT_AUTO_UPDATE: 'false' },
    args: ['--usage-output-file', usageFile],
    usage() {
      try {
        if (statSync(usageFile).size > USAGE_MAX_BYTES) return undefined;
        return copilotUsage(readFileSync(usageFile, 'utf8'));
      } catch {
        return undefined;
      }
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

function transcriptEvent(o: Record<string, unknown>): HostTranscriptEntry[] {
  const d = recordOf(o.data);
  if (!d) return [];
  if (o.type === 'assistant.message') {
    const out: HostTranscriptEntry[] = [];
    if (typeof d.content === 'string' && d.content.trim()) out.push({ kind: 'text', summary: d.content });
    for (const r of Array.isArray(d.toolRequests) ? d.toolRequests.map(recordOf) : []) if (r) out.push({ kind: 'tool_call', tool: String(r.name ?? ''), summary: JSON.stringify(r.arguments ?? {}) });
    return out;
  }
  if (o.type === 'tool.execution_complete') {
    const tool = calls.tool(d.toolCallId) ?? '';
    if (d.success === false) return [{ kind: 'error', tool, summary: String(recordOf(d.error)?.message ?? 'the tool failed') }];
    const content = recordOf(d.result)?.content;
    return [{ kind: 'tool_result', tool, summary: typeof content === 'string' ? content : JSON.stringify(d.result ?? '') }];
  }
  return [];
}

export const copilotAdapter: HostAdapter = {
  ...info,
  version: { min: '1.0.102', checked: '1.0.102', re: /(\d+\.\d+\.\d+)/ },
  // Piped stdin is the prompt (no -p); --allow-tool names the room's server only (every other
  // tool keeps Copilot's default: refused headless, where nobody can approve it).
  presetDef: {
    host: 'copilot',
    command: 'copilot',
    // A flag of its own first: what a run adds goes after the first arg (spawn-spec.ts).
    args: ['--no-auto-update', '--output-format', 'json', '--no-ask-user', '--allow-tool', '{server}', '--additional-mcp-config', RUN_MCP_CONFIG],
  },
  connectEnv: [
    'COPILOT_HOME',
    'COPILOT_OFFLINE',
    'COPILOT_MODEL',
    'COPILOT_PROVIDER_BASE_URL',
    'COPILOT_PROVIDER_TYPE',
    'COPILOT_PROVIDER_API_KEY',
    'COPILOT_PROVIDER_BEARER_TOKEN',
    'COPILOT_PROVIDER_WIRE_API',
    'COPILOT_PROVIDER_MODEL_ID',
    'COPILOT_PROVIDER_WIRE_MODEL',
    'COPILOT_PROVIDER_HEADERS',
    'COPILOT_GITHUB_TOKEN',
    'GH_TOKEN',
    'GITHUB_TOKEN',
    'GH_HOST',
  ],
  async register({ plan, env, tools }) {
    const file = copilotConfigFile(env);
    writePlanEntry({ plan, tools }, file);
    return modelAccess(env) ? undefined : 'Copilot CLI has no model for headless runs: sign in once with `copilot login`, or set COPILOT_PROVIDER_BASE_URL (and COPILOT_MODEL) in your shell, then connect again';
  },
  configEntry(server, plate, env) {
    const file = copilotConfigFile(env);
    const e = getAt(readJsonLoose(file), ['mcpServers', server]);
    if (!e) return undefined;
    return {
      file,
      credential: bearerOf(e),
      missing: modelAccess(env) ? undefined : { what: 'a model: a GitHub sign-in or COPILOT_PROVIDER_BASE_URL', fix: `copilot login (or set COPILOT_PROVIDER_BASE_URL and COPILOT_MODEL), then agent-rooms connect copilot --agent ${plate}` },
    };
  },
  streamFormat(args) {
    const i = args.indexOf('--output-format');
    return (i >= 0 && args[i + 1] === 'json') || args.includes('--output-format=json') ? 'json-lines' : 'text';
  },
  runArgs(c) {
    // The other agents' room servers of the user's mcp-config.json stay off: the run acts as its own agent only.
    const servers = recordOf(readJsonLoose(copilotConfigFile(c.env))?.mcpServers) ?? {};
    return Object.keys(servers)
      .filter((n) => isOtherRoomServer(n, c.server) && /^[A-Za-z0-9_-]+$/.test(n))
      .flatMap((n) => ['--disable-mcp-server', n]);
  },
  runHome: (c) => (c.preset ? runHome(c.env, c.instructions) : { env: {}, cleanup: () => undefined }),
  transcriptEvent,
  usageEvent(o: Record<string, unknown>, state: UsageState) {
    const d = recordOf(o.data);
    if (o.type === 'assistant.message' && typeof d?.content === 'string' && d.content.trim()) state.answer = d.content.trim();
  },
  toolsRefused(o, server) {
    const d = recordOf(o.data);
    if (!d) return undefined;
    if (o.type === 'tool.execution_start') calls.note(d.toolCallId, d.toolName);
    if (o.type !== 'tool.execution_complete' || d.success !== false || !isRoomTool(calls.tool(d.toolCallId), server)) return undefined;
    const err = recordOf(d.error);
    const words = typeof err?.message === 'string' ? err.message : '';
    return err?.code === 'denied' || REFUSAL_WORDS.test(words) ? refusalWords(words || 'permission denied') : undefined;
  },
  quirks: [
    'The JSON events carry no tokens (the `result` event has premium requests only): the usage comes from `--usage-output-file`.',
    'A tool that is not allowed is refused headless ("Permission denied because no interactive user response was available") and the run exits 0.',
    'The room\'s tools are offered as `<server>-<tool>`; the prompt reaches the model after a `<current_datetime>` tag.',
    'The first start in a HOME unpacks the CLI into ~/.cache/copilot (about 15 s here).',
    '`--additional-mcp-config` replaces a same-named server of mcp-config.json for the run.',
  ],
};
