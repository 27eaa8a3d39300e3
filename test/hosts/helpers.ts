import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { forFile } from '../helpers/for-file.js';
import { cliArgs } from '../helpers/cli-bundle.js';
import type { StandIn } from './standins.js';

/** The pinned host CLIs live in test/hosts/node_modules (npm ci --prefix test/hosts). */
export const HOSTS_DIR = fileURLToPath(new URL('.', import.meta.url));
export const BIN_DIR = join(HOSTS_DIR, 'node_modules', '.bin');

/**
 * Whether a host CLI is installed. Missing in CI is a failure (the install is part of the
 * test chain, so a missing CLI means the install broke); elsewhere the test is skipped and
 * says why.
 */
export function hostInstalled(bin: string): boolean {
  const ok = existsSync(join(BIN_DIR, bin));
  if (!ok) {
    const why = `${bin} is not installed in test/hosts/node_modules: run \`npm ci --prefix test/hosts\``;
    if (process.env.CI) throw new Error(`${why} (CI: a host CLI that did not install fails the test)`);
    console.warn(`skipped: ${why}`);
  }
  return ok;
}

/** PATH with the pinned CLIs first, so the shipped presets (`claude`, `codex`, `gemini`) find them. */
export function pathWithHosts(): string {
  return [BIN_DIR, process.env.PATH ?? ''].join(delimiter);
}

/** A fresh HOME for one test run: the host CLIs keep their settings and sign-in there. */
export function freshHome(label: string): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), `ar-host-${label}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }) };
}

/** What a host test stands on: the server, a loopback model API and a fresh HOME, with PATH finding the pinned CLIs. */
export interface HostRig {
  s: TestServer;
  model: StandIn;
  home: { dir: string; cleanup(): void };
  /** Stops the server and the stand-in, removes the HOME and puts PATH and `env` back as they were. */
  close(): Promise<void>;
}

/**
 * Opens a host test's rig: PATH (and `env`, e.g. a shorter channel ack) set for the CLIs, a fresh
 * HOME named after `label`, the model stand-in, and a server whose rate limit lets one call through
 * at a time (as a user's would).
 */
export async function openHostRig(label: string, standIn: () => Promise<StandIn>, env: Record<string, string> = {}): Promise<HostRig> {
  const saved = Object.fromEntries(['PATH', ...Object.keys(env)].map((k) => [k, process.env[k]]));
  process.env.PATH = pathWithHosts();
  Object.assign(process.env, env);
  const home = freshHome(label);
  const model = await standIn();
  const s = await startTestServer({ rateLimit: { perSecond: 0, burst: 1 } });
  return {
    s,
    model,
    home,
    async close() {
      await s.stop();
      await model.close();
      home.cleanup();
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    },
  };
}

/**
 * A host test file's rig, shared by its tests (`setup` runs once it is open):
 * `const rig = hostRigForFile('codex', openaiStandIn)`, then `rig.s`, `rig.model`, `rig.home`.
 */
export function hostRigForFile(
  label: string,
  standIn: () => Promise<StandIn>,
  opts: { env?: Record<string, string>; setup?: (rig: HostRig) => void } = {},
): Pick<HostRig, 's' | 'model' | 'home'> {
  return forFile(async () => {
    const rig = await openHostRig(label, standIn, opts.env);
    try {
      opts.setup?.(rig);
    } catch (err) {
      await rig.close();
      throw err;
    }
    return rig;
  });
}

/** The user's own Codex config in `homeDir`: a model provider pointing at the stand-in; approvals and sandbox at their defaults. */
export function writeCodexConfig(homeDir: string, modelUrl: string): void {
  mkdirSync(join(homeDir, '.codex'), { recursive: true });
  writeFileSync(
    join(homeDir, '.codex', 'config.toml'),
    ['model = "gpt-standin"', 'model_provider = "standin"', '[model_providers.standin]', 'name = "standin"', `base_url = "${modelUrl}/v1"`, 'env_key = "OPENAI_API_KEY"', 'wire_api = "responses"', ''].join('\n'),
  );
}

/** What Claude Code needs to reach the stand-in model: the runner's env, as an owner would set it. */
export function claudeHostEnv(homeDir: string, modelUrl: string): Record<string, string> {
  return {
    HOME: homeDir,
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'sk-ant-standin-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
}

/** Runs a host CLI to its end (asynchronously), for `mcp add` / `mcp list` and `--version`. */
export function run(bin: string, args: string[], env: NodeJS.ProcessEnv, opts: { cwd?: string; input?: string; timeoutMs?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(BIN_DIR, bin), args, { env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** The server side the host tests share (kept structural so this file needs no root imports). */
interface Api {
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

async function poll<T>(fn: () => Promise<T | undefined>, what: string, limitMs: number): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Mentions the agent in the room and waits for the wake to end; returns the wake and the
 * room's messages. The agent's runner must already be configured.
 */
export async function mentionAndWait(s: Api, opts: { plate: string; handle: string; room: string; body: string; limitMs?: number }) {
  const before = ((await s.api('GET', `/v1/agents/${opts.plate}/wakes`)).body.wakes as any[]).length;
  const m = await s.api('POST', `/v1/rooms/${opts.room}/messages`, { body: opts.body, mention_targets: [opts.handle] });
  if (m.status !== 201) throw new Error(`mention failed: ${JSON.stringify(m.body)}`);
  const wake = await poll(
    async () => {
      const ws = (await s.api('GET', `/v1/agents/${opts.plate}/wakes`)).body.wakes as any[];
      return ws.length > before ? ws.find((w) => w.message_id === m.body.message_id && (w.status === 'handled' || w.status === 'failed')) : undefined;
    },
    'the wake to end',
    opts.limitMs ?? 120_000,
  );
  const messages = (await s.api('GET', `/v1/rooms/${opts.room}/messages`)).body.messages as any[];
  return { wake, messages, mentionAt: Date.parse(m.body.created_at) };
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `agent-rooms ARGS` from source (the run's bundle, cli-bundle.ts), as a user runs it from a shell with `env`, asynchronously. */
export function agentRooms(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliArgs(), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
