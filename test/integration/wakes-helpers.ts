import { readFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import type { TestAgent, TestHarness, ToolCaller } from '../helpers/server.js';

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

/** A wakes test file's app or server, its scratch folder, and what its tests do with fixture runners. */
export interface RunnerRig<H extends TestHarness<ToolCaller>> {
  /** Opened in beforeAll: read from the tests. */
  s: H;
  dir: string;
  /** An agent whose codex runner is the fixture agent, logging to `<dir>/<name>.log`. */
  runnerAgent(name: string, extra?: Record<string, unknown>): Promise<TestAgent & { log: string }>;
  /** The agent's wake log (GET /v1/agents/:plate/wakes). */
  wakesOf(plate: string): Promise<any[]>;
  /** A human's message mentioning one handle (201 asserted); its body. */
  mention(room: string, handle: string, body: string): Promise<any>;
}

/** Opens `open()` and a scratch folder before the file's tests, and closes both after them. */
export function runnerRig<H extends TestHarness<ToolCaller>>(open: () => Promise<H>): RunnerRig<H> {
  const rig: RunnerRig<H> = {
    s: undefined as unknown as H,
    dir: '',
    async runnerAgent(name, extra = {}) {
      const a = await rig.s.agent(name);
      const log = join(rig.dir, `${name}.log`);
      const r = await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, fixtureRunner(log, extra));
      expect(r.status).toBe(200);
      return { ...a, log };
    },
    wakesOf: async (plate) => (await rig.s.api('GET', `/v1/agents/${plate}/wakes`)).body.wakes as any[],
    mention: (room, handle, body) =>
      rig.s.api('POST', `/v1/rooms/${room}/messages`, { body, mention_targets: [handle] }).then((r) => {
        expect(r.status).toBe(201);
        return r.body;
      }),
  };
  beforeAll(async () => {
    rig.s = await open();
    rig.dir = mkdtempSync(join(tmpdir(), 'agent-rooms-runner-'));
  });
  afterAll(async () => {
    await rig.s?.stop();
    if (rig.dir) rmSync(rig.dir, { recursive: true, force: true });
  });
  return rig;
}
