/**
 * Headless invocations of the supported agent hosts. Each reads the wake's content (the raw
 * message body or task payload) on stdin; the host's own MCP configuration is expected to
 * point at the URL in AGENT_ROOMS_MCP_URL (docs/wakes.md shows how for each host).
 */
export const RUNNER_PRESETS = {
  'claude -p': { host: 'claude-code', command: 'claude', args: ['-p'] },
  'codex exec': { host: 'codex', command: 'codex', args: ['exec'] },
  'gemini -p': { host: 'gemini', command: 'gemini', args: ['-p'] },
  'cursor-agent -p': { host: 'cursor', command: 'cursor-agent', args: ['-p'] },
} as const;

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
