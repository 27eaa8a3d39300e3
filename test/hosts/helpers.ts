import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
