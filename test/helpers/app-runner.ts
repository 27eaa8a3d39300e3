import type { ProcessOutcome, ProcessRunner, ProcessSpec, RunningProcess } from '../../src-main/core/wakes/runners.js';
import { keptText } from '../../src-main/core/wakes/runners.js';
import { keptUsage } from '../../src-main/core/wakes/mask.js';
import { UsageScanner } from '../../src-main/core/wakes/usage.js';
import { runAgent } from '../fixtures/runner-agent-script.mjs';
import type { AppClient } from './app.js';

/** How the in-process fixture agent reaches the core: the app's own client, opened with the run's URL. */
export type RunConnect = (bearer: string, host?: string, opts?: { query?: string }) => Promise<AppClient>;

/** Each in-process run logs a number of its own where a process logs its pid (tests pair start and end lines by it). */
let runs = 0;

/**
 * The in-process app's process runner (docs/testing.md "Wakes in process"): instead of spawning
 * the configured command it runs the fixture agent's script (the same one runner-agent.mjs runs
 * as a process) against the core, through the app's client opened with the URL and run
 * credential the dispatcher put in the environment, so its tool calls take the product's path
 * (agent authentication, mcp/call.ts, the run's session and its tool-call count). The outcome
 * has the process runner's shape: exit code, timeout, kill reason, masked output tails, usage.
 * Whatever the command, the fixture agent runs: the process runner itself (spawn, env, argv,
 * process groups, signals) is tested over HTTP (wakes-process.test.ts).
 */
export function appProcessRunner(connect: RunConnect): ProcessRunner {
  return (spec: ProcessSpec): RunningProcess => {
    const pid = -++runs;
    let out = '';
    let err = '';
    let timedOut = false;
    let killedReason: string | undefined;
    let ended = false;
    let wakeUp: () => void = () => {};
    const stopped = new Promise<void>((r) => (wakeUp = r));
    const end = () => {
      ended = true;
      wakeUp();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      end();
    }, spec.timeoutMs);
    timer.unref();
    const url = new URL(spec.env.AGENT_ROOMS_MCP_URL ?? '');
    const host = url.pathname.replace(/^\/mcp\/?/, '') || undefined;
    const scanner = new UsageScanner();
    const agent = runAgent({
      env: spec.env,
      stdin: spec.stdin,
      cwd: spec.cwd,
      pid,
      connect: () => connect('', host, { query: url.search }),
      alive: () => !ended,
      // A run that is ended (timeout, kill) stops waiting at once, as a killed process would.
      sleep: (ms) => Promise.race([new Promise<void>((r) => setTimeout(r, ms)), stopped]),
      stdout: (t) => {
        out += t;
        scanner.push(t);
      },
      stderr: (t) => void (err += t),
    });
    const done = agent.then((code): ProcessOutcome => {
      clearTimeout(timer);
      const killed = timedOut || killedReason !== undefined;
      const read = scanner.result();
      return {
        exitCode: killed ? null : code,
        signal: killed ? 'SIGTERM' : null,
        timedOut,
        killedReason,
        stdoutTail: keptText(read.answer ?? out, spec.secrets),
        stderrTail: keptText(err, spec.secrets),
        ...(read.usage ? { usage: keptUsage(read.usage, spec.secrets) } : {}),
      };
    });
    return {
      pid: undefined,
      done,
      kill(reason) {
        killedReason ??= reason;
        end();
      },
      forceKill: end,
    };
  };
}
