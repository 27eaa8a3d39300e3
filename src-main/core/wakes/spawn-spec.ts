import type { RunnerConfig } from './runners.js';
import { expandRunnerArgs, presetArgsFor, RUNNER_PRESETS, serverNameFor, type PresetDef, type WorkPolicy } from './presets.js';
import { wakeInstructions, type RunHome } from './run-home.js';
import { hostAdapter } from '../hosts/adapter.js';
import type { WakeEnvelope } from './envelope.js';

/**
 * The spawn spec of one run (docs/wakes.md, docs/hosts.md): the command's args with the preset's
 * placeholders filled and its work policy's flags in place, the environment with the run's own
 * credential, and the per-run settings home of hosts that read servers from files only. Pure of
 * the dispatcher: what a run is given is decided here, where and when it runs elsewhere.
 */

/** The server's own AGENT_ROOMS_* settings are not the runner's business. */
export function runnerBaseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AGENT_ROOMS_')) env[k] = v;
  return env;
}

export interface SpawnSpec {
  /** The command to start instead of the runner's own (a host whose CLI reads its prompt from a pipe only). */
  command?: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** A per-run settings home (hosts that read their servers from files only), removed when the run ends. */
  home?: RunHome;
}

/** Builds the spec; `refused` when the preset cannot run this policy (not checked for the host). */
export function runnerSpawnSpec(
  runner: RunnerConfig,
  envelope: WakeEnvelope,
  hostUrl: string,
  credential: string,
  policy: WorkPolicy,
): SpawnSpec | { refused: string } {
  const server = serverNameFor(runner.plate);
  // The presets connect with the core tool profile (docs/hosts.md); custom commands get the plain URL.
  const baseUrl = runner.preset ? `${hostUrl}?tools=core` : hostUrl;
  const instructions = wakeInstructions(envelope, server);
  const env: NodeJS.ProcessEnv = {
    ...runnerBaseEnv(),
    ...runner.env,
    AGENT_ROOMS_WAKE: JSON.stringify(envelope),
    AGENT_ROOMS_MCP_URL: `${baseUrl}${baseUrl.includes('?') ? '&' : '?'}key=${credential}`,
    AGENT_ROOMS_MCP_BASE_URL: baseUrl,
    AGENT_ROOMS_MCP_SERVER: server,
    AGENT_ROOMS_CREDENTIAL: credential,
    // A custom command reads what it may do here; the presets get their host's own flags.
    AGENT_ROOMS_WORK: policy,
  };
  const preset: PresetDef | undefined = runner.preset ? RUNNER_PRESETS[runner.preset] : undefined;
  let template: readonly string[] = runner.args;
  if (preset) {
    const withPolicy = presetArgsFor(preset, policy);
    if ('refused' in withPolicy) return withPolicy;
    template = withPolicy.args;
  }
  const args = expandRunnerArgs(template, { mcpBaseUrl: baseUrl, server, instructions });
  // The host's own quirks of a run (hosts/<id>.ts): args it needs after the first (Codex turns the
  // other agents' room servers of the user's config off), and a per-run settings home for a preset.
  const adapter = hostAdapter(runner.host);
  const context = { env, server, mcpBaseUrl: baseUrl, instructions, preset: !!preset, command: runner.command, args };
  const extra = adapter?.runArgs?.(context) ?? [];
  if (extra.length) args.splice(1, 0, ...extra);
  const home = preset && adapter?.runHome ? adapter.runHome(context) : undefined;
  if (home?.args?.length) args.splice(1, 0, ...home.args);
  // A CLI that reads its prompt from a FIFO only gets one: the shell's pipe from `cat` (the content still arrives on stdin).
  if (adapter?.stdinPipe && process.platform !== 'win32') return { command: '/bin/sh', args: ['-c', 'cat | exec "$0" "$@"', runner.command, ...args], env: { ...env, ...home?.env }, home };
  return { args, env: { ...env, ...home?.env }, home };
}
