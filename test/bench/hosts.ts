/**
 * Hosts benchmark: per host, with the real CLI (test/hosts/node_modules) driven by the
 * loopback stand-in of its model API, the time from a mention to the first tool call of the
 * woken agent landing in the room (the agent's send_message), p50 of 10 wakes one at a time,
 * beside the bare process start of the same CLI (`--version`, p50 of 10): the difference is
 * what the server, the preset and the host's own start-up add. Hosts whose CLI is not
 * installed (`npm ci --prefix test/hosts`) are skipped and say so.
 * Run: npx tsx test/bench/hosts.ts
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startCore } from '../../src-main/core/start.js';
import { anthropicStandIn, geminiStandIn, openaiStandIn, type StandIn } from '../hosts/standins.js';

const BIN_DIR = fileURLToPath(new URL('../hosts/node_modules/.bin', import.meta.url));

export interface HostsBenchRow {
  what: string;
  value: number;
  unit: 'ms';
  baseline: string;
  baseline_value: number;
  ratio: number;
}

interface HostSpec {
  host: 'claude-code' | 'codex' | 'gemini';
  bin: string;
  preset: string;
  model: () => Promise<StandIn>;
  /** The user's own host settings in the run's HOME, and the runner env that reaches the stand-in. */
  setup(home: string, model: StandIn): Record<string, string>;
}

const HOSTS: HostSpec[] = [
  {
    host: 'claude-code',
    bin: 'claude',
    preset: 'claude -p',
    model: () => anthropicStandIn(),
    setup: (home, m) => ({ HOME: home, ANTHROPIC_BASE_URL: m.url, ANTHROPIC_API_KEY: 'sk-ant-bench', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' }),
  },
  {
    host: 'codex',
    bin: 'codex',
    preset: 'codex exec',
    model: () => openaiStandIn(),
    setup: (home, m) => {
      mkdirSync(join(home, '.codex'), { recursive: true });
      writeFileSync(
        join(home, '.codex', 'config.toml'),
        `model = "gpt-standin"\nmodel_provider = "standin"\n[model_providers.standin]\nname = "standin"\nbase_url = "${m.url}/v1"\nenv_key = "OPENAI_API_KEY"\nwire_api = "responses"\n`,
      );
      return { HOME: home, OPENAI_API_KEY: 'sk-bench' };
    },
  },
  {
    host: 'gemini',
    bin: 'gemini',
    preset: 'gemini -p',
    model: () => geminiStandIn(),
    setup: (home, m) => {
      mkdirSync(join(home, '.gemini'), { recursive: true });
      writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
      return { HOME: home, GEMINI_API_KEY: 'bench-key', GOOGLE_GEMINI_BASE_URL: m.url };
    },
  },
];

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.ceil(s.length / 2) - 1]!;
}

function versionStart(bin: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(join(BIN_DIR, bin), ['--version'], { env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - t0));
  });
}

async function benchHost(spec: HostSpec, n: number, log: (l: string) => void): Promise<HostsBenchRow | undefined> {
  if (!existsSync(join(BIN_DIR, spec.bin))) {
    log(`${spec.host}: ${spec.bin} not installed in test/hosts (npm ci --prefix test/hosts), skipped`);
    return undefined;
  }
  const serverHome = mkdtempSync(join(tmpdir(), 'agent-rooms-bench-hosts-'));
  const userHome = mkdtempSync(join(tmpdir(), `agent-rooms-bench-${spec.bin}-`));
  const model = await spec.model();
  const savedPath = process.env.PATH;
  process.env.PATH = [BIN_DIR, savedPath ?? ''].join(delimiter);
  const running = await startCore({ home: serverHome, port: 0, ownerName: 'Bench Owner', rateLimit: { perSecond: 0, burst: 0 }, log: () => {} });
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(running.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${running.ownerToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as any };
  };
  try {
    const env = spec.setup(userHome, model);
    const versions: number[] = [];
    for (let i = 0; i < n; i++) versions.push(await versionStart(spec.bin, { ...process.env, ...env }));

    const a = (await api('POST', '/v1/agents', { name: `${spec.bin} bench` })).body;
    const room = (await api('POST', '/v1/rooms', { name: `${spec.bin} bench room` })).body.room_id as string;
    await api('POST', `/v1/rooms/${room}/members`, { plate: a.plate });
    const put = await api('PUT', `/v1/agents/${a.plate}/runners/${spec.host}`, { preset: spec.preset, env, timeout_ms: 120_000 });
    if (put.status !== 200) throw new Error(`runner: ${JSON.stringify(put.body)}`);

    const latencies: number[] = [];
    for (let i = 0; i < n; i++) {
      let landed: (() => void) | undefined;
      const firstCall = new Promise<void>((r) => (landed = r));
      const off = running.core.bus.on((e) => {
        if (e.type === 'message.created' && e.room === room && (e.data as { sender?: { plate?: string } })?.sender?.plate === a.plate) landed?.();
      });
      const t0 = performance.now();
      const m = await api('POST', `/v1/rooms/${room}/messages`, { body: `bench ${i}`, mention_targets: [a.handle] });
      if (m.status !== 201) throw new Error(`mention: ${JSON.stringify(m.body)}`);
      const limit = setTimeout(() => landed?.(), 120_000);
      await firstCall;
      clearTimeout(limit);
      latencies.push(performance.now() - t0);
      off();
      // One wake at a time: wait for the run to end before the next mention.
      for (;;) {
        const ws = (await api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes as Array<{ status: string }>;
        if (ws.every((w) => w.status === 'handled' || w.status === 'failed')) {
          if (ws.some((w) => w.status === 'failed')) throw new Error(`a ${spec.host} wake failed`);
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const value = p50(latencies);
    const baseline = p50(versions);
    log(`${spec.host}: mention -> first tool call p50 ${value.toFixed(0)} ms, ${spec.bin} --version p50 ${baseline.toFixed(0)} ms`);
    return { what: `${spec.host}: mention -> first tool call p50 of ${n}`, value, unit: 'ms', baseline: `${spec.bin} --version p50`, baseline_value: baseline, ratio: value / baseline };
  } finally {
    await running.close();
    await model.close();
    process.env.PATH = savedPath;
    rmSync(serverHome, { recursive: true, force: true });
    rmSync(userHome, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}

export async function runHostsBench(log: (l: string) => void = () => {}, n = 10): Promise<HostsBenchRow[]> {
  const rows: HostsBenchRow[] = [];
  for (const spec of HOSTS) {
    const row = await benchHost(spec, n, log);
    if (row) rows.push(row);
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runHostsBench((l) => process.stderr.write(l + '\n'));
  for (const r of rows) process.stdout.write(`${r.what}: ${r.value.toFixed(0)} ms (${r.baseline}: ${r.baseline_value.toFixed(0)} ms, ${r.ratio.toFixed(1)}x)\n`);
}
