/**
 * The shared baseline of every benchmark in test/bench/: the SDK's bare `echo` tool on a
 * minimal McpServer, served with StreamableHTTPServerTransport on node:http with stateful
 * sessions (as our server does), measured with the same client and load shapes as ours.
 * Benches compare their tools against it in the same process, never against a fixed time.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setMaxListeners } from 'node:events';
import { Worker } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fork, type Serializable } from 'node:child_process';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface EchoBaseline {
  /** The MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  url: string;
  close(): Promise<void>;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined);
      } catch (e) {
        reject(e as Error);
      }
    });
    req.on('error', reject);
  });
}

/** Starts the bare echo server on 127.0.0.1 and a free port. */
export async function startEchoBaseline(): Promise<EchoBaseline> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const servers: McpServer[] = [];
  const http = createServer(async (req, res) => {
    try {
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const sid = req.headers['mcp-session-id'];
      if (typeof sid === 'string') {
        const t = transports.get(sid);
        if (!t) {
          res.writeHead(404).end();
          return;
        }
        await t.handleRequest(req, res, body);
        return;
      }
      if (req.method !== 'POST' || !isInitializeRequest(body)) {
        res.writeHead(400).end();
        return;
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) transports.delete(transport.sessionId);
      };
      const server = new McpServer({ name: 'echo-baseline', version: '1.0.0' });
      server.registerTool('echo', { description: 'Echoes the message', inputSchema: { message: z.string() } }, async ({ message }) => ({
        content: [{ type: 'text', text: message }],
      }));
      servers.push(server);
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch {
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      await Promise.all([...transports.values()].map((t) => t.close().catch(() => {})));
      await Promise.all(servers.map((s) => s.close().catch(() => {})));
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/** An official MCP client on `url`, with optional headers (e.g. Authorization). */
export async function benchClient(url: string, headers?: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : undefined);
  await client.connect(transport);
  // Every request of the SDK client hangs an abort listener on one long-lived signal, released
  // only when the request is collected: thousands of calls trip Node's leak warning, not a leak.
  const signal = (transport as unknown as { _abortController?: AbortController })._abortController?.signal;
  if (signal) setMaxListeners(0, signal);
  return client;
}

export interface BenchRow {
  name: string;
  mode: string;
  calls: number;
  calls_per_s: number;
  p50_ms: number;
  p99_ms: number;
  /** Process CPU time (user + system, every thread: clients, servers, SQLite checkpointer; plus the clients' process when they run apart) per call. */
  cpu_us_per_call: number;
  /** The clients' own CPU per call (in cpu_us_per_call too), when they run in a process of their own. */
  client_cpu_us_per_call?: number;
  /** Busy time of the servers' event loop per call, when the clients run in the load worker. */
  server_us_per_call?: number;
  /** Share of the run the clients' thread (the load worker) was busy: near 1, the clients were what limited calls/s. */
  client_busy?: number;
  /** p50 divided by the baseline's p50 in the same mode. */
  p50_vs_baseline?: number;
  /** calls/s divided by the baseline's calls/s in the same mode. */
  throughput_vs_baseline?: number;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** One call of a benchmarked tool; throws if the tool reported an error. */
export type BenchCall = (client: Client, clientIndex: number, i: number) => Promise<unknown>;

/** Calls `call` `perClient` times from each client (all clients at once) after a warm-up; latencies per call. */
export async function runLoad(
  name: string,
  mode: string,
  clients: Client[],
  call: BenchCall,
  opts: { perClient: number; warmup?: number },
): Promise<BenchRow> {
  const warmup = opts.warmup ?? 50;
  await Promise.all(clients.map(async (c, ci) => {
    for (let i = 0; i < warmup; i++) await call(c, ci, -1 - i);
  }));
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (c, ci) => {
      for (let i = 0; i < opts.perClient; i++) {
        const s = performance.now();
        await call(c, ci, i);
        latencies.push(performance.now() - s);
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  latencies.sort((a, b) => a - b);
  return {
    name,
    mode,
    calls: latencies.length,
    calls_per_s: latencies.length / elapsed,
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    cpu_us_per_call: (cpu.user + cpu.system) / latencies.length,
  };
}

/**
 * The median round of repeated runs of the same load (by p50; calls/s and CPU medians too):
 * benchmarks alternate their tool and the baseline in rounds, so that a busy machine weighs
 * on both alike.
 */
export function medianOfRounds(rounds: BenchRow[]): BenchRow {
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return {
    name: rounds[0]!.name,
    mode: rounds[0]!.mode,
    calls: rounds.reduce((n, r) => n + r.calls, 0),
    calls_per_s: med(rounds.map((r) => r.calls_per_s)),
    p50_ms: med(rounds.map((r) => r.p50_ms)),
    p99_ms: med(rounds.map((r) => r.p99_ms)),
    cpu_us_per_call: med(rounds.map((r) => r.cpu_us_per_call)),
    ...(rounds[0]!.server_us_per_call === undefined ? {} : { server_us_per_call: med(rounds.map((r) => r.server_us_per_call!)) }),
    ...(rounds[0]!.client_busy === undefined ? {} : { client_busy: med(rounds.map((r) => r.client_busy!)) }),
    ...(rounds[0]!.client_cpu_us_per_call === undefined ? {} : { client_cpu_us_per_call: med(rounds.map((r) => r.client_cpu_us_per_call!)) }),
  };
}

/**
 * Rounds of each row (by `name|mode`, in run order) to one row each: the median round, with its
 * ratios the median of each round's ratio to the baseline's run of the same round and mode. A
 * round's rows ran back to back under the same machine load, so a swing of load between rounds
 * moves both sides of a ratio instead of one.
 */
export function compareRoundsToBaseline(results: ReadonlyMap<string, BenchRow[]>, baselineName: string): BenchRow[] {
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const rows: BenchRow[] = [];
  for (const [key, rs] of results) {
    const mode = key.slice(key.indexOf('|') + 1);
    const base = results.get(`${baselineName}|${mode}`);
    const row = medianOfRounds(rs);
    if (base && base.length === rs.length) {
      row.p50_vs_baseline = med(rs.map((x, i) => x.p50_ms / base[i]!.p50_ms));
      row.throughput_vs_baseline = med(rs.map((x, i) => x.calls_per_s / base[i]!.calls_per_s));
    }
    rows.push(row);
  }
  return rows;
}

/** Fills the ratios of each row against the baseline row of the same mode. */
export function compareToBaseline(rows: BenchRow[], baselineName: string): BenchRow[] {
  for (const r of rows) {
    const b = rows.find((x) => x.name === baselineName && x.mode === r.mode);
    if (!b) continue;
    r.p50_vs_baseline = r.p50_ms / b.p50_ms;
    r.throughput_vs_baseline = r.calls_per_s / b.calls_per_s;
  }
  return rows;
}

export function formatTable(rows: BenchRow[]): string {
  const head = ['tool', 'mode', 'calls', 'calls/s', 'p50 ms', 'p99 ms', 'server µs/call', 'CPU µs/call', 'clients busy', 'p50 / echo', 'calls/s / echo'];
  const body = rows.map((r) => [
    r.name,
    r.mode,
    String(r.calls),
    r.calls_per_s.toFixed(0),
    r.p50_ms.toFixed(3),
    r.p99_ms.toFixed(3),
    r.server_us_per_call === undefined ? '' : r.server_us_per_call.toFixed(0),
    r.cpu_us_per_call.toFixed(0),
    r.client_busy === undefined ? '' : `${(r.client_busy * 100).toFixed(0)}%`,
    r.p50_vs_baseline === undefined ? '' : `${r.p50_vs_baseline.toFixed(2)}x`,
    r.throughput_vs_baseline === undefined ? '' : `${r.throughput_vs_baseline.toFixed(2)}x`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

/** One call of the baseline's echo tool. */
export const echoCall: BenchCall = async (c) => {
  const r = await c.callTool({ name: 'echo', arguments: { message: 'hello' } });
  if (r.isError) throw new Error('echo failed');
};

export const BASELINE_NAME = 'echo (SDK baseline)';

/** The load generator's end of the messages, a worker thread or a forked process alike. */
interface LoadChannel {
  on(event: 'message', listener: (m: any) => void): unknown;
  off(event: 'message', listener: (m: any) => void): unknown;
  send(m: unknown): void;
  stop(): Promise<unknown>;
  /** The clients' process, when it is not this one. */
  pid?: number;
}

function loadChannel(inProcess: boolean): LoadChannel {
  const file = new URL('./load-worker.mjs', import.meta.url);
  if (!inProcess) {
    const w = new Worker(file);
    return { on: (e, l) => w.on(e, l), off: (e, l) => w.off(e, l), send: (m) => w.postMessage(m), stop: () => w.terminate() };
  }
  // Plain node, whatever runs this file: the worker is plain JS.
  const child = fork(fileURLToPath(file), [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    pid: child.pid,
    on: (e, l) => child.on(e, l),
    off: (e, l) => child.off(e, l),
    send: (m) => void child.send(m as Serializable),
    stop: () => {
      if (child.exitCode !== null) return Promise.resolve();
      const exited = new Promise((r) => child.once('exit', r));
      child.kill();
      return exited;
    },
  };
}

/**
 * The official MCP clients in a worker thread (test/bench/load-worker.mjs): the servers under
 * test keep the main thread's event loop to themselves, and its busy time per call is the
 * server's own cost (`server_us_per_call`), apart from the clients'. With `process: true` the
 * clients run in a child process of their own instead, as agents do: the operating system then
 * schedules them apart from the server's process, and `cpu_us_per_call` adds their CPU to ours.
 */
export class LoadWorker {
  private readonly worker: LoadChannel;
  private nextId = 1;

  constructor(opts: { process?: boolean } = {}) {
    this.worker = loadChannel(opts.process === true);
  }

  /** The clients' process id when they run in a process of their own, else undefined. */
  get pid(): number | undefined {
    return this.worker.pid;
  }

  private request(msg: Record<string, unknown>, onWarm?: () => void): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onMessage = (m: any) => {
        if (m.id !== id) return;
        if (m.phase === 'warm') {
          onWarm?.();
          this.worker.send({ type: 'go' });
          return;
        }
        this.worker.off('message', onMessage);
        if (m.ok) resolve(m);
        else reject(new Error(m.error));
      };
      this.worker.on('message', onMessage);
      this.worker.send({ ...msg, id });
    });
  }

  /** Connects a named pool of clients (one per entry) and keeps it for later runs. */
  async connect(pool: string, clients: Array<{ url: string; headers?: Record<string, string> }>): Promise<void> {
    await this.request({ type: 'connect', pool, clients });
  }

  /** Every client of the pool calls `tool` `perClient` times at once (after a warm-up), client i with args[i]. */
  async run(
    name: string,
    mode: string,
    pool: string,
    tool: string,
    args: Array<Record<string, unknown>>,
    opts: { perClient: number; warmup?: number },
  ): Promise<BenchRow> {
    let elu0: ReturnType<typeof performance.eventLoopUtilization> | undefined;
    let cpu0: NodeJS.CpuUsage | undefined;
    const r = await this.request({ type: 'run', pool, tool, args, perClient: opts.perClient, warmup: opts.warmup ?? 50 }, () => {
      elu0 = performance.eventLoopUtilization();
      cpu0 = process.cpuUsage();
    });
    const elu = performance.eventLoopUtilization(elu0);
    const cpu = process.cpuUsage(cpu0);
    const latencies = (r.latencies as number[]).sort((a, b) => a - b);
    const clientCpuUs = r.clientCpuUs as number | undefined;
    return {
      name,
      mode,
      calls: latencies.length,
      calls_per_s: latencies.length / (r.elapsedMs / 1000),
      p50_ms: percentile(latencies, 50),
      p99_ms: percentile(latencies, 99),
      cpu_us_per_call: (cpu.user + cpu.system + (clientCpuUs ?? 0)) / latencies.length,
      server_us_per_call: (elu.active * 1000) / latencies.length,
      client_busy: r.clientUtilization as number,
      ...(clientCpuUs === undefined ? {} : { client_cpu_us_per_call: clientCpuUs / latencies.length }),
    };
  }

  async close(): Promise<void> {
    await this.request({ type: 'close' }).catch(() => {});
    await this.worker.stop();
  }
}

/** A human API call with an owner token; throws on an error status (benches set up through /v1). */
export async function api(baseUrl: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** An agent a bench seeded: its handle (to mention it) and its credential (to connect as it). */
export interface BenchAgent {
  handle: string;
  credential: string;
}

/** A new room of `count` new agents of the owner, each with a credential, on a running server (through /v1). */
export async function benchRoom(
  server: { baseUrl: string; ownerToken: string },
  count: number,
  names: { room?: string; device?: string } = {},
): Promise<{ room: string; agents: BenchAgent[] }> {
  const { baseUrl, ownerToken } = server;
  const room = (await api(baseUrl, ownerToken, 'POST', '/v1/rooms', { name: names.room ?? 'Bench' })).room_id as string;
  const agents: BenchAgent[] = [];
  for (let i = 0; i < count; i++) {
    const a = await api(baseUrl, ownerToken, 'POST', '/v1/agents', { name: `Agent ${i}` });
    const c = await api(baseUrl, ownerToken, 'POST', `/v1/agents/${a.plate}/credentials`, { device: names.device ?? 'bench' });
    await api(baseUrl, ownerToken, 'POST', `/v1/rooms/${room}/members`, { plate: a.plate });
    agents.push({ handle: a.handle, credential: c.credential });
  }
  return { room, agents };
}

/** How the load worker connects to a server's MCP endpoint as this agent. */
export function asAgent(mcpUrl: string, agent: BenchAgent): { url: string; headers: Record<string, string> } {
  return { url: mcpUrl, headers: { authorization: `Bearer ${agent.credential}` } };
}

/** The pools of one server: `<label>-1`, its first agent alone, and `<label>-n`, all of them at once. */
export async function connectPools(load: LoadWorker, label: string, mcpUrl: string, agents: BenchAgent[]): Promise<void> {
  await load.connect(`${label}-1`, [asAgent(mcpUrl, agents[0]!)]);
  await load.connect(`${label}-n`, agents.map((a) => asAgent(mcpUrl, a)));
}

/** The baseline's pools: `echo-1`, one client, and `echo-n`, `count` clients; with the echo arguments of each. */
export async function connectEchoPools(load: LoadWorker, echo: EchoBaseline, count: number): Promise<Array<Record<string, unknown>>> {
  await load.connect('echo-1', [{ url: echo.url }]);
  await load.connect('echo-n', Array.from({ length: count }, () => ({ url: echo.url })));
  return Array.from({ length: count }, () => ({ message: 'hello' }));
}

/** send_message's arguments for each agent's client: each mentions the next agent (one inbox item and one durable wake per message). */
export function mentionNext(room: string, agents: BenchAgent[]): Array<Record<string, unknown>> {
  return agents.map((_, i) => ({ room, body: 'Build is green; please review the diff.', mention_targets: [agents[(i + 1) % agents.length]!.handle] }));
}

/**
 * A bench's own entry, for the file run directly (`npx tsx test/bench/x.ts`) and not when run.ts
 * imports it: progress on stderr, the rows as a table on stdout, exit 1 on a failure.
 */
export function tableWhenRun(moduleUrl: string, bench: (log: (line: string) => void) => Promise<unknown[]>): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  bench((l) => process.stderr.write(`${l}\n`))
    .then((rows) => {
      console.table(rows);
      process.exit(0);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
