/**
 * One host adapter per agent host (docs/hosts.md "Adding a host"): the only place that knows a
 * host. `agent-rooms connect` and `doctor` (hosts/connect.ts), the runner route and the wake
 * records (wakes/service.ts), the dispatcher (wakes/presets.ts, spawn-spec.ts, run-home.ts,
 * usage.ts, transcript.ts, runner-run.ts), the window (through the pure part in shared/hosts.ts)
 * and the docs iterate `HOST_ADAPTERS`. Adding a host is one file `hosts/<id>.ts` exporting its
 * adapter, its row in shared/hosts.ts and in the list below, and its test; test/unit/host-adapters.test.ts
 * checks every adapter is complete and that no other file of the core names a host.
 *
 * This folder imports only the infrastructure and shared/: wakes/ and agents/ import it.
 */
import type { WakeUsage } from '../../../shared/api-types.js';
import type { ConnectPlan, HostInfo } from '../../../shared/hosts.js';
import { WORK_POLICIES } from '../../../shared/schemas/wakes.js';
import { claudeCodeAdapter } from './claude-code.js';
import { codexAdapter } from './codex.js';
import { geminiAdapter } from './gemini.js';
import { cursorAdapter } from './cursor.js';
import { opencodeAdapter } from './opencode.js';
import { copilotAdapter } from './copilot.js';
import { qwenAdapter } from './qwen.js';
import { clineAdapter } from './cline.js';

// ------------------------------------------------------------------ presets and work policies

/** What a run may do (docs/worktrees.md "Work policies"): the runner body's list (shared/schemas/wakes.ts). */
export { WORK_POLICIES };
export type WorkPolicy = (typeof WORK_POLICIES)[number];

/** What the host's own sandbox needs on this machine for a policy to stay confined. */
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

/**
 * A runner preset: the headless invocation of the host's CLI (docs/hosts.md per host). Args may
 * hold placeholders, replaced at spawn time (wakes/presets.ts expandRunnerArgs): `{mcp_base_url}`
 * the host's MCP URL (no credential), `{server}` the per-agent server name, `{wake_instructions}`
 * the envelope as text, `{wake_instructions_toml}` the same as a TOML string.
 */
export interface PresetDef {
  host: string;
  command: string;
  args: readonly string[];
  /** The host's flags per work policy, as checked on the version docs/hosts.md names; absent: `room` only. */
  work?: PresetWork;
}

// ------------------------------------------------------------------ connect and doctor

/** Output of `connect`/`doctor`, one line each. */
export interface Out {
  out(line: string): void;
}

/** JSON settings as connect reads and writes them. */
export type JsonObject = Record<string, unknown>;

/**
 * What `connect` hands an adapter to write the host's own config. The writes go through these
 * helpers only (hosts/connect.ts: owner-only files, merged with the user's entries, a lenient
 * read that never replaces a file that is not JSON), never through a write of the adapter's own.
 */
export interface ConnectTools {
  /** Merges into a JSON settings file (0600); `change` edits the parsed object in place. */
  mergeJson(file: string, change: (config: JsonObject) => void): void;
  /** Sets `NAME=value` in a dotenv file (0600), keeping every other line. */
  setEnvLine(file: string, name: string, value: string): void;
  /** Runs a command (no shell, no secret on it) to its end. */
  run(argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  out(line: string): void;
}

export interface ConnectContext {
  plan: ConnectPlan;
  plate: string;
  credential: string;
  /** The CLI's absolute path when it is on the user's PATH. */
  cli: string | undefined;
  /** The user's shell environment (`HOME`, the host's own settings variables). */
  env: NodeJS.ProcessEnv;
  tools: ConnectTools;
}

/** What `connect` wrote for one agent in this host's config, as `doctor` reads it back. */
export interface HostConfigEntry {
  file: string;
  credential?: string;
  /** A setting the host's headless run needs is missing, and how to fix it. */
  missing?: { what: string; fix: string };
}

// ------------------------------------------------------------------ runs

/** A per-run folder the server writes for a host that reads its servers or usage from files. */
export interface RunHome {
  /** Environment additions for the run. */
  env: Record<string, string>;
  /** Removes the per-run folder (never the user's own files, which are only linked). */
  cleanup(): void;
  /** The run's usage, read from a file the host wrote there (Copilot's --usage-output-file). */
  usage?(): WakeUsage | undefined;
  /** Args the run needs that name a file of this folder (Copilot's `--usage-output-file`), added after the first. */
  args?: readonly string[];
}

export interface RunContext {
  /** The run's environment (the runner's env and the AGENT_ROOMS_* variables): the user's HOME, the host's settings. */
  env: NodeJS.ProcessEnv;
  /** The per-agent server name (`agent-rooms-<plate>`). */
  server: string;
  /** The host's MCP URL for the run, without a credential (`?tools=core` for the presets). */
  mcpBaseUrl: string;
  /** The envelope as the host's own instructions (wakes/run-home.ts wakeInstructions). */
  instructions: string;
  /** The runner is the host's preset (not an owner's own command). */
  preset: boolean;
  /** The runner's command and its args as expanded (an own command named like the host's CLI gets the same quirks). */
  command: string;
  args: readonly string[];
}

/** How a run's stdout is read into its transcript (wakes/transcript.ts). */
export type StreamFormat = 'claude-stream-json' | 'codex-json' | 'gemini-json' | 'gemini-stream-json' | 'json-lines' | 'text';

/** One transcript entry an adapter reads from an event of its host's JSON lines (`json-lines`). */
export interface HostTranscriptEntry {
  kind: 'text' | 'tool_call' | 'tool_result' | 'error' | 'result';
  tool?: string;
  summary: string;
}

/** What a run cost so far and the model's answer, read event by event from the host's JSON lines. */
export interface UsageState {
  usage?: WakeUsage;
  answer?: string;
}

export interface HostAdapter extends HostInfo {
  /** The CLI version the preset was checked with (doctor warns below it; docs/hosts.md names it). */
  version: { min: string; checked: string; re: RegExp };
  /** The runner preset (wakes/presets.ts lists every adapter's). */
  presetDef: PresetDef;
  /** Variables of the user's shell `connect` copies into the runner's env (sealed) when set: what the host needs to reach its model. */
  connectEnv: readonly string[];
  /** Registers the room's server in the host's own config; returns a problem that keeps the agent from waking, if any. */
  register(c: ConnectContext): Promise<string | undefined>;
  /** What `connect` wrote for `server` in the host's config, read back for `doctor`; undefined when there is none. */
  configEntry(server: string, plate: string, env: NodeJS.ProcessEnv): HostConfigEntry | undefined;
  /** Whether `connect` configures a runner without the CLI on PATH (Cursor: configured by file). */
  configuredByFile?: boolean;
  /** How a run's stdout reads (the preset's own format, or one its args name for an own command). */
  streamFormat(args: readonly string[], preset: boolean): StreamFormat;
  /** The stream this host's CLI prints when an owner's own command of any host runs it (`codex exec --json`), if its args say. */
  recognizes?(args: readonly string[]): StreamFormat | undefined;
  /** Per-run settings home (hosts that read their MCP servers from files only). */
  runHome?(c: RunContext): RunHome;
  /** Args to add to a run (a host that loads every server of the user's config: the other agents' are turned off). */
  runArgs?(c: RunContext): string[];
  /** `json-lines`: the transcript entries of one event. */
  transcriptEvent?(event: Record<string, unknown>): HostTranscriptEntry[];
  /** The usage and answer after one event of the host's JSON output (usage.ts calls it for every JSON line). */
  usageEvent?(event: Record<string, unknown>, state: UsageState): void;
  /**
   * The host's own words when one event of its JSON output shows a call of the room's tools
   * refused by an approval rule (the run still exits 0): the wake fails `tools_refused`.
   */
  toolsRefused?(event: Record<string, unknown>, server: string): string | undefined;
  /**
   * The CLI takes its prompt only from a pipe (a FIFO), not from the socket a Node child's stdin
   * is (Cline: "interactive mode requires a TTY"): the run starts it as `sh -c 'cat | exec "$0" "$@"'`.
   */
  stdinPipe?: boolean;
  /**
   * The same for a host whose output is text (Cline): its words when one stdout line shows a call
   * of the room's tools refused.
   */
  toolsRefusedLine?(line: string, server: string): string | undefined;
  /** Helper processes the CLI leaves behind (a daemon), stopped when the run ends; beyond the process group and the run's marker. */
  cleanup?(c: { env: NodeJS.ProcessEnv; home?: RunHome }): Promise<void>;
  /** One line per quirk seen on the checked version (docs/hosts.md lists them). */
  quirks: readonly string[];
}

/** Every host, in the window's order (shared/hosts.ts HOSTS has the same ids in the same order). */
export const HOST_ADAPTERS: readonly HostAdapter[] = [claudeCodeAdapter, codexAdapter, geminiAdapter, cursorAdapter, opencodeAdapter, copilotAdapter, qwenAdapter, clineAdapter];

export function hostAdapter(id: string): HostAdapter | undefined {
  return HOST_ADAPTERS.find((h) => h.id === id);
}

/** The adapter whose preset this is. */
export function adapterOfPreset(preset: string): HostAdapter | undefined {
  return HOST_ADAPTERS.find((h) => h.preset === preset);
}

export const HOST_IDS = (): string[] => HOST_ADAPTERS.map((h) => h.id);
