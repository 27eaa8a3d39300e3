/**
 * Headless invocations of the supported agent hosts. Each reads the wake's content (the raw
 * message body or task payload) on stdin and is told, on its own command line, where the
 * room's MCP server is, without the credential ever appearing in argv:
 * - Claude Code expands `${AGENT_ROOMS_MCP_URL}` in an `--mcp-config` url itself, and
 *   `--allowedTools mcp__agent-rooms` lets the headless run call the room's tools;
 * - Codex takes the server as `-c mcp_servers.…` overrides, with the bearer credential read
 *   from `AGENT_ROOMS_CREDENTIAL` (`bearer_token_env_var`);
 * - Gemini CLI and cursor-agent read their MCP servers from settings files only: point them at
 *   `${AGENT_ROOMS_MCP_URL}` there (docs/wakes.md shows both).
 * `{mcp_base_url}` in args is replaced at spawn time by the host's MCP URL (no credential).
 */
const CLAUDE_MCP_CONFIG = JSON.stringify({ mcpServers: { 'agent-rooms': { type: 'http', url: '${AGENT_ROOMS_MCP_URL}' } } });

export const RUNNER_PRESETS = {
  'claude -p': { host: 'claude-code', command: 'claude', args: ['-p', '--mcp-config', CLAUDE_MCP_CONFIG, '--allowedTools', 'mcp__agent-rooms'] },
  'codex exec': {
    host: 'codex',
    command: 'codex',
    args: ['exec', '-c', 'mcp_servers.agent-rooms.url="{mcp_base_url}"', '-c', 'mcp_servers.agent-rooms.bearer_token_env_var="AGENT_ROOMS_CREDENTIAL"'],
  },
  'gemini -p': { host: 'gemini', command: 'gemini', args: ['-p'] },
  'cursor-agent -p': { host: 'cursor', command: 'cursor-agent', args: ['-p'] },
} as const;

/** Replaces the `{mcp_base_url}` placeholder of runner args. */
export function expandRunnerArgs(args: readonly string[], mcpBaseUrl: string): string[] {
  return args.map((a) => a.split('{mcp_base_url}').join(mcpBaseUrl));
}

export type RunnerPreset = keyof typeof RUNNER_PRESETS;
export const PRESET_NAMES = Object.keys(RUNNER_PRESETS) as [RunnerPreset, ...RunnerPreset[]];

/** Short aliases a human may type instead of the full preset name. */
const ALIASES: Record<string, RunnerPreset> = { claude: 'claude -p', codex: 'codex exec', gemini: 'gemini -p', 'cursor-agent': 'cursor-agent -p', cursor: 'cursor-agent -p' };

export function presetNamed(name: string): RunnerPreset | undefined {
  if (name in RUNNER_PRESETS) return name as RunnerPreset;
  return ALIASES[name];
}

/** A runner's default timeout (10 minutes) and the bounds an owner may choose from. */
export const RUNNER_TIMEOUT_DEFAULT_MS = 10 * 60 * 1000;
export const RUNNER_TIMEOUT_MIN_MS = 100;
export const RUNNER_TIMEOUT_MAX_MS = 24 * 60 * 60 * 1000;
