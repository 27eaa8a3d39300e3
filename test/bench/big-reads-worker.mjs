// The biggest reads of test/bench/scale.ts, run from a worker thread so that the server on the
// main thread is the only thing its event loop does: the stall measured there is the server's,
// not the client's parsing. Times GET /v1/me meanwhile. With `idleMs`, runs only the GET /v1/me
// loop for that long (the baseline stall of the same run). Says 'ready' once connected and
// starts on 'go', so the monitor watches the reads alone. Plain JS (runs under tsx and node).
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const { base, token, mcpUrl, credential, room, paths, rounds, idleMs } = workerData;
const auth = { authorization: `Bearer ${token}` };

const client = new Client({ name: 'big-reads', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${credential}` } } }));
parentPort.postMessage('ready');
await new Promise((resolve) => parentPort.once('message', resolve));
let stop = false;
const me = [];
const loader = (async () => {
  if (idleMs) await new Promise((resolve) => setTimeout(resolve, idleMs));
  for (let i = 0; i < (idleMs ? 0 : rounds); i++) {
    for (const p of paths) await (await fetch(base + p, { headers: auth })).text();
    await client.callTool({ name: 'read_board', arguments: { room, detail: 'full', limit: 200 } });
    await client.callTool({ name: 'list_files', arguments: { room, limit: 500 } });
  }
  stop = true;
})();
while (!stop) {
  const t = performance.now();
  await (await fetch(base + '/v1/me', { headers: auth })).text();
  me.push(performance.now() - t);
  await new Promise((r) => setTimeout(r, 5));
}
await loader;
await client.close();
parentPort.postMessage({ me });
