/**
 * Headless invocations of the supported agent hosts, as the real CLIs take them (docs/hosts.md
 * says which host version each flag was checked on). Each preset:
 * - reads the wake's content (the raw message body or task payload) verbatim on stdin;
 * - reaches the room's MCP server under a per-agent server name (`agent-rooms-<plate>`), so an
 *   auth failure a host remembers by server name cannot poison another agent's runs;
 * - lets the headless run call exactly that server's tools without an approval prompt, and
 *   nothing more (never a blanket bypass of the host's other safety settings);
 * - passes the wake's envelope to the model as the host's system-prompt addition, so the model
 *   knows where it is without the content being touched;
 * - never puts the credential in argv: it travels in the environment.
 *
 * Placeholders in args, replaced at spawn time (expandRunnerArgs):
 * `{mcp_base_url}` the host's MCP URL (no credential), `{server}` the per-agent server name,
 * `{wake_instructions}` the envelope as text, `{wake_instructions_toml}` the same as a TOML string.
 */
import { mcpServerName } from '../../../shared/host-connect.js';

const CLAUDE_MCP_CONFIG = JSON.stringify({ mcpServers: { '{server}': { type: 'http', url: '${AGENT_ROOMS_MCP_URL}' } } });

export interface PresetDef {
  host: string;
  command: string;
  args: readonly string[];
  /** A per-run settings home the server writes for the run (hosts that read MCP servers from files only). */
  runHome?: 'gemini';
}

export const RUNNER_PRESETS = {
  // --strict-mcp-config: the run sees the room's server under its run credential only, not a
  // same-named entry from the user's settings; --allowedTools names that one server.
  // --output-format stream-json (which needs --verbose with -p): the result event carries the
  // run's usage and cost (usage.ts reads it, docs/wakes.md "Usage").
  'claude -p': {
    host: 'claude-code',
    command: 'claude',
    args: ['-p', '--output-format', 'stream-json', '--verbose', '--mcp-config', CLAUDE_MCP_CONFIG, '--strict-mcp-config', '--allowedTools', 'mcp__{server}', '--append-system-prompt', '{wake_instructions}'],
  },
  // Codex takes the server as -c overrides (no file edit); approval "approve" is set on this
  // server only; outside a git repository codex exec refuses to start without --skip-git-repo-check.
  // --json: events as JSON lines, whose turn.completed events carry the tokens used.
  'codex exec': {
    host: 'codex',
    command: 'codex',
    args: [
      'exec',
      '--json',
      '--skip-git-repo-check',
      '-c',
      'mcp_servers.{server}.url="{mcp_base_url}"',
      '-c',
      'mcp_servers.{server}.bearer_token_env_var="AGENT_ROOMS_CREDENTIAL"',
      '-c',
      'mcp_servers.{server}.default_tools_approval_mode="approve"',
      '-c',
      'developer_instructions={wake_instructions_toml}',
      '-',
    ],
  },
  // `-p ""` reads the prompt from stdin; --skip-trust trusts the working folder for this run
  // only; the server entry (trust: true on it alone) and the envelope (GEMINI.md) live in a
  // per-run GEMINI_CLI_HOME seeded from the user's own ~/.gemini. --output-format json: one
  // object with the answer and the tokens per model (stats.models).
  'gemini -p': { host: 'gemini', command: 'gemini', args: ['--skip-trust', '--output-format', 'json', '-p', ''], runHome: 'gemini' },
  // cursor-agent reads MCP servers from .cursor/mcp.json only (agent-rooms connect cursor writes
  // it); --approve-mcps approves the configured servers for the headless run.
  'cursor-agent -p': { host: 'cursor', command: 'cursor-agent', args: ['-p', '--output-format', 'text', '--approve-mcps'] },
} as const satisfies Record<string, PresetDef>;

export interface RunnerArgsContext {
  mcpBaseUrl: string;
  server: string;
  instructions: string;
}

/** Replaces the placeholders of runner args (custom runners may use them too). */
export function expandRunnerArgs(args: readonly string[], c: RunnerArgsContext): string[] {
  const values: Record<string, string> = {
    '{mcp_base_url}': c.mcpBaseUrl,
    '{server}': c.server,
    '{wake_instructions}': c.instructions,
    // A JSON string is a valid TOML basic string.
    '{wake_instructions_toml}': JSON.stringify(c.instructions),
  };
  return args.map((a) => a.replace(/\{(mcp_base_url|server|wake_instructions_toml|wake_instructions)\}/g, (m) => values[m] ?? m));
}

/** The per-agent MCP server name hosts know the room by (the same name `agent-rooms connect` registers). */
export const serverNameFor = mcpServerName;

export type PresetName = keyof typeof RUNNER_PRESETS;
export const PRESET_NAMES = Object.keys(RUNNER_PRESETS) as [PresetName, ...PresetName[]];

/** Short aliases a human may type instead of the full preset name. */
const ALIASES: Record<string, PresetName> = { claude: 'claude -p', codex: 'codex exec', gemini: 'gemini -p', 'cursor-agent': 'cursor-agent -p', cursor: 'cursor-agent -p' };

export function presetNamed(name: string): PresetName | undefined {
  if (name in RUNNER_PRESETS) return name as PresetName;
  return ALIASES[name];
}

/** A runner's default timeout (10 minutes) and the bounds an owner may choose from. */
export const RUNNER_TIMEOUT_DEFAULT_MS = 10 * 60 * 1000;
export const RUNNER_TIMEOUT_MIN_MS = 100;
export const RUNNER_TIMEOUT_MAX_MS = 24 * 60 * 60 * 1000;
