import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RUNNER_AGENT = fileURLToPath(new URL('../fixtures/runner-agent.mjs', import.meta.url));

/** What is left of T once its falsy values are taken out: what `waitFor` can return. */
type Truthy<T> = Exclude<T, false | 0 | 0n | '' | null | undefined>;

/** Polls until `fn` returns a truthy value; the limit only bounds a hung test, it asserts nothing. */
export async function waitFor<T>(fn: () => T | Promise<T>, what: string, limitMs = 30_000): Promise<Truthy<T>> {
  const end = Date.now() + limitMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as Truthy<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface RunnerLogLine {
  event: 'start' | 'end' | 'saw_task' | 'completed';
  wake: Record<string, unknown>;
  pid: number;
  stdin?: string;
  cwd?: string;
  has_key?: boolean;
  code?: number;
  status?: string;
  lease?: { instance_id: string | null };
  notes?: string;
}

export function readRunnerLog(file: string): RunnerLogLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RunnerLogLine);
}

/** The runner body that spawns the fixture agent with node, logging to `log`. */
export function fixtureRunner(log: string, extra: Record<string, unknown> = {}) {
  return { command: process.execPath, args: [RUNNER_AGENT], env: { RUNNER_LOG: log }, ...extra };
}
