/**
 * Core benchmark: whoami and send_message (with a mention) against the SDK's bare echo
 * tool, same process, same client, same transport. Run: npx tsx test/bench/core.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startCore } from '../../src-main/core/start.js';
import {
  BASELINE_NAME,
  benchClient,
  compareToBaseline,
  echoCall,
  formatTable,
  medianOfRounds,
  runLoad,
  startEchoBaseline,
  type BenchCall,
  type BenchRow,
} from './baseline.js';

export interface CoreBenchOptions {
  /** Calls per round from one client. */
  sequentialCalls?: number;
  concurrentClients?: number;
  /** Calls per round from each of the concurrent clients. */
  perClient?: number;
  /** Rounds of (echo, whoami, send_message), alternated; each row is the median round. */
  rounds?: number;
}

async function api(baseUrl: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export async function runCoreBench(opts: CoreBenchOptions = {}): Promise<BenchRow[]> {
  const sequentialCalls = opts.sequentialCalls ?? 600;
  const concurrentClients = opts.concurrentClients ?? 10;
  const perClient = opts.perClient ?? 120;
  const rounds = opts.rounds ?? 3;

  const echo = await startEchoBaseline();
  const home = mkdtempSync(join(tmpdir(), 'agent-rooms-bench-'));
  const running = await startCore({ home, port: 0, ownerName: 'Bench Owner', rateLimit: { perSecond: 0, burst: 0 }, log: () => {} });
  const clients: Client[] = [];
  try {
    const { baseUrl, ownerToken } = running;
    const room = (await api(baseUrl, ownerToken, 'POST', '/v1/rooms', { name: 'Bench' })).room_id as string;
    const agents: Array<{ handle: string; credential: string }> = [];
    for (let i = 0; i < concurrentClients; i++) {
      const a = await api(baseUrl, ownerToken, 'POST', '/v1/agents', { name: `Agent ${i}` });
      const c = await api(baseUrl, ownerToken, 'POST', `/v1/agents/${a.plate}/credentials`, { device: 'bench' });
      await api(baseUrl, ownerToken, 'POST', `/v1/rooms/${room}/members`, { plate: a.plate });
      agents.push({ handle: a.handle, credential: c.credential });
    }
    const connect = async (url: string, credential?: string) => {
      const c = await benchClient(url, credential ? { authorization: `Bearer ${credential}` } : undefined);
      clients.push(c);
      return c;
    };
    const whoami: BenchCall = async (c) => {
      const r = await c.callTool({ name: 'whoami', arguments: {} });
      if (r.isError) throw new Error(`whoami failed: ${JSON.stringify(r.structuredContent)}`);
    };
    const sendMessage: BenchCall = async (c, ci) => {
      const r = await c.callTool({
        name: 'send_message',
        arguments: { room, body: 'Build is green; please review the diff.', mention_targets: [agents[(ci + 1) % agents.length]!.handle] },
      });
      if (r.isError) throw new Error(`send_message failed: ${JSON.stringify(r.structuredContent)}`);
    };

    const echoOne = [await connect(echo.url)];
    const echoMany = await Promise.all(agents.map(() => connect(echo.url)));
    const ours = [await connect(running.mcpUrl, agents[0]!.credential)];
    const oursMany = await Promise.all(agents.map((a) => connect(running.mcpUrl, a.credential)));
    const concurrent = `${concurrentClients} clients`;
    const plan: Array<[string, string, Client[], BenchCall, number]> = [
      [BASELINE_NAME, 'sequential', echoOne, echoCall, sequentialCalls],
      ['whoami', 'sequential', ours, whoami, sequentialCalls],
      ['send_message + mention', 'sequential', ours, sendMessage, sequentialCalls],
      [BASELINE_NAME, concurrent, echoMany, echoCall, perClient],
      ['whoami', concurrent, oursMany, whoami, perClient],
      ['send_message + mention', concurrent, oursMany, sendMessage, perClient],
    ];
    const results = new Map<string, BenchRow[]>();
    for (let round = 0; round < rounds; round++) {
      for (const [name, mode, cs, fn, n] of plan) {
        const row = await runLoad(name, mode, cs, fn, { perClient: n, warmup: round === 0 ? 50 : 5 });
        const key = `${name}|${mode}`;
        results.set(key, [...(results.get(key) ?? []), row]);
      }
    }
    return compareToBaseline([...results.values()].map(medianOfRounds), BASELINE_NAME);
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await running.close();
    await echo.close();
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runCoreBench();
  process.stdout.write(formatTable(rows) + '\n');
  const seq = rows.find((r) => r.name.startsWith('send_message') && r.mode === 'sequential')!;
  const conc = rows.find((r) => r.name.startsWith('send_message') && r.mode !== 'sequential')!;
  process.stdout.write(
    `\naims: send_message p50 within 1.5x of echo: ${seq.p50_vs_baseline!.toFixed(2)}x ${seq.p50_vs_baseline! <= 1.5 ? 'met' : 'MISSED'}; ` +
      `>= 1000 send_message calls/s with ${conc.mode}: ${conc.calls_per_s.toFixed(0)} ${conc.calls_per_s >= 1000 ? 'met' : 'MISSED'}\n`,
  );
}
