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
import { mcpServerName } from '../../../shared/hosts.js';
import { HOST_ADAPTERS, WORK_POLICIES, type PresetDef, type PresetWork, type SandboxNeed, type WorkPolicy } from '../hosts/adapter.js';

export { WORK_POLICIES, type PresetDef, type PresetWork, type SandboxNeed, type WorkPolicy };

/**
 * Every host adapter's preset by name (hosts/<id>.ts holds each, with why each flag is there):
 * `claude -p`, `codex exec`, `gemini -p`, `cursor-agent -p`, and those of the hosts added since.
 */
export const RUNNER_PRESETS: Readonly<Record<string, PresetDef>> = Object.fromEntries(HOST_ADAPTERS.map((h) => [h.preset, h.presetDef]));

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

export type PresetName = string;
export const PRESET_NAMES = Object.keys(RUNNER_PRESETS) as [PresetName, ...PresetName[]];

/** Short aliases a human may type instead of the full preset name (each adapter's `presetAliases`). */
const ALIASES: Record<string, PresetName> = Object.fromEntries(HOST_ADAPTERS.flatMap((h) => h.presetAliases.map((a) => [a, h.preset])));

export function presetNamed(name: string): PresetName | undefined {
  if (Object.hasOwn(RUNNER_PRESETS, name)) return name;
  return Object.hasOwn(ALIASES, name) ? ALIASES[name] : undefined;
}

/** A runner's default timeout (10 minutes); the bounds an owner may choose from are the runner body's (shared/schemas/wakes.ts). */
export const RUNNER_TIMEOUT_DEFAULT_MS = 10 * 60 * 1000;
