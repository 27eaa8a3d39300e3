import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RUNNER_AGENT = fileURLToPath(new URL('../fixtures/runner-agent.mjs', import.meta.url));

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
