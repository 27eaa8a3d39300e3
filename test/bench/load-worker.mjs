// The load generator of test/bench: official MCP clients in a worker thread, so that the
// servers under test (on the main thread) get an event loop of their own, or in a child
// process of their own (LoadWorker's `process` option), as agents are. Plain JS: it needs
// nothing but the SDK client, and runs the same under tsx and plain node.
import { parentPort as threadPort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { setMaxListeners } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The parent: the thread's port, or the IPC channel of a forked process (same messages). */
const parentPort = threadPort ?? {
  on: (event, listener) => process.on(event, listener),
  once: (event, listener) => process.once(event, listener),
  postMessage: (m) => process.send(m),
};
/** In a process of its own, the clients' CPU is not in the parent's process.cpuUsage(): reported with each run. */
const ownProcess = !threadPort;
// A parent that dies without closing us (a crashed bench) leaves clients retrying their event
// streams against a server that is gone: leave with it.
if (ownProcess) process.on('disconnect', () => process.exit(0));

/** Connected clients by pool name, reused across runs. */
const pools = new Map();

async function connect(url, headers) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : undefined);
  await client.connect(transport);
  // The SDK client hangs an abort listener per request on one long-lived signal, released when
  // the request is collected: thousands of calls trip Node's leak warning without a leak.
  if (transport._abortController) setMaxListeners(0, transport._abortController.signal);
  return client;
}

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.structuredContent)}`);
}

parentPort.on('message', async (msg) => {
  try {
    if (msg.type === 'connect') {
      const clients = await Promise.all(msg.clients.map((c) => connect(c.url, c.headers)));
      pools.set(msg.pool, clients);
      parentPort.postMessage({ id: msg.id, ok: true });
    } else if (msg.type === 'run') {
      const clients = pools.get(msg.pool);
      await Promise.all(clients.map(async (c, i) => {
        for (let k = 0; k < msg.warmup; k++) await call(c, msg.tool, msg.args[i]);
      }));
      parentPort.postMessage({ id: msg.id, phase: 'warm' });
      await new Promise((resolve) => parentPort.once('message', resolve));
      const latencies = [];
      const t0 = performance.now();
      const elu0 = performance.eventLoopUtilization();
      const cpu0 = process.cpuUsage();
      await Promise.all(clients.map(async (c, i) => {
        for (let k = 0; k < msg.perClient; k++) {
          const s = performance.now();
          await call(c, msg.tool, msg.args[i]);
          latencies.push(performance.now() - s);
        }
      }));
      const cpu = process.cpuUsage(cpu0);
      parentPort.postMessage({
        id: msg.id,
        ok: true,
        latencies,
        elapsedMs: performance.now() - t0,
        clientUtilization: performance.eventLoopUtilization(elu0).utilization,
        ...(ownProcess && { clientCpuUs: cpu.user + cpu.system }),
      });
    } else if (msg.type === 'close') {
      await Promise.all([...pools.values()].flat().map((c) => c.close().catch(() => {})));
      pools.clear();
      parentPort.postMessage({ id: msg.id, ok: true });
    }
  } catch (err) {
    parentPort.postMessage({ id: msg.id, ok: false, error: String(err?.stack ?? err) });
  }
});
