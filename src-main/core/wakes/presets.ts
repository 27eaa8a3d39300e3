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

/** What a run may do (docs/worktrees.md "Work policies"). */
export type WorkPolicy = 'room' | 'edit' | 'full';
export const WORK_POLICIES = ['room', 'edit', 'full'] as const satisfies readonly WorkPolicy[];

/** What the host's own sandbox needs on this machine for `full` (shell commands) to stay confined. */
export type SandboxNeed = { commands: readonly string[]; anyOf?: boolean; platforms: readonly NodeJS.Platform[] };

export interface PresetWork {
  /** Where the policy's args go in the preset's args (before a trailing stdin marker, say). */
  at: number;
  /** The host's own flags for `edit`: its read and edit tools, confined to the working folder, no shell. */
  edit: readonly string[];
  /** The host's own flags for `full`: shell commands too, inside its sandbox; absent: refused (no sandbox that can be checked). */
  full?: readonly string[];
  /** What `edit` needs to stay confined, where the host's edits themselves run in its sandbox (Codex). */
  editSandbox?: SandboxNeed;
  fullSandbox?: SandboxNeed;
}

export interface PresetDef {
  host: string;
  command: string;
  args: readonly string[];
  /** A per-run settings home the server writes for the run (hosts that read MCP servers from files only). */
  runHome?: 'gemini';
  /** The host's flags per work policy, as checked on the version docs/hosts.md names; absent: `room` only. */
  work?: PresetWork;
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
    // acceptEdits approves Read/Write/Edit inside the working folder only (outside it they are
    // refused headless); naming them in --allowedTools instead would allow them on any path.
    // Bash is denied for edit: acceptEdits would otherwise approve commands like `touch` in the folder.
    work: {
      at: 1,
      edit: ['--permission-mode', 'acceptEdits', '--disallowedTools', 'Bash'],
      // failIfUnavailable: without it Claude Code warns and runs Bash unsandboxed when bwrap is missing.
      full: [
        '--permission-mode',
        'acceptEdits',
        '--settings',
        '{"sandbox":{"enabled":true,"failIfUnavailable":true,"autoAllowBashIfSandboxed":true,"allowUnsandboxedCommands":false}}',
      ],
      fullSandbox: { commands: ['bwrap', 'socat'], platforms: ['linux', 'darwin'] },
    },
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
    // Codex reads and edits through its own commands (shell, apply_patch), run in its sandbox:
    // workspace-write confines writes to the working folder, with /tmp and $TMPDIR taken out of it
    // (else writable). It has no edit mode without commands that can still read a file (with
    // --disable shell_tool a model reads nothing), so edit runs them in the sandbox with no
    // network; full adds the network (docs/hosts.md "Work policies").
    work: {
      at: 1,
      edit: ['--sandbox', 'workspace-write', '-c', 'sandbox_workspace_write.exclude_slash_tmp=true', '-c', 'sandbox_workspace_write.exclude_tmpdir_env_var=true'],
      full: [
        '--sandbox',
        'workspace-write',
        '-c',
        'sandbox_workspace_write.exclude_slash_tmp=true',
        '-c',
        'sandbox_workspace_write.exclude_tmpdir_env_var=true',
        '-c',
        'sandbox_workspace_write.network_access=true',
      ],
      editSandbox: { commands: [], platforms: ['linux', 'darwin'] },
      fullSandbox: { commands: [], platforms: ['linux', 'darwin'] },
    },
  },
  // `-p ""` reads the prompt from stdin; --skip-trust trusts the working folder for this run
  // only; the server entry (trust: true on it alone) and the envelope (GEMINI.md) live in a
  // per-run GEMINI_CLI_HOME seeded from the user's own ~/.gemini. --output-format json: one
  // object with the answer and the tokens per model (stats.models).
  // --output-format stream-json: one JSON event per line as the run goes (the live transcript),
  // the answer and the tokens in its last events (usage.ts). auto_edit adds write_file and replace
  // (no shell) and refuses paths outside the workspace (the working folder). No full: yolo runs
  // shell commands unconfined unless --sandbox finds a container runtime and its image, which
  // cannot be checked here (docs/hosts.md), so full is refused rather than run unconfined.
  'gemini -p': {
    host: 'gemini',
    command: 'gemini',
    args: ['--skip-trust', '--output-format', 'stream-json', '-p', ''],
    runHome: 'gemini',
    work: { at: 0, edit: ['--approval-mode', 'auto_edit'] },
  },
  // cursor-agent reads MCP servers from .cursor/mcp.json only (agent-rooms connect cursor writes
  // it); --approve-mcps approves the configured servers for the headless run.
  'cursor-agent -p': { host: 'cursor', command: 'cursor-agent', args: ['-p', '--output-format', 'text', '--approve-mcps'] },
} as const satisfies Record<string, PresetDef>;

/** The preset's args for a policy: its own args with the policy's flags where they go, or why it cannot. */
export function presetArgsFor(p: PresetDef, policy: WorkPolicy): { args: string[] } | { refused: string } {
  if (policy === 'room') return { args: [...p.args] };
  if (!p.work) return { refused: `a ${p.host} run can only use the room's tools here: how it edits files and runs commands has not been checked` };
  const extra = policy === 'edit' ? p.work.edit : p.work.full;
  if (!extra) return { refused: `a ${p.host} run cannot run commands here: its sandbox cannot be checked, and commands never run outside one (reading and editing files works)` };
  return { args: [...p.args.slice(0, p.work.at), ...extra, ...p.args.slice(p.work.at)] };
}

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
