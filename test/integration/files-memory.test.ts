import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawnServer, type ChildServer } from '../helpers/child.js';

const MiB = 1024 * 1024;
const FILE_MIB = 100;
const RSS_BOUND = 64 * MiB;

/** The server's resident set size, from /proc (a memory bound, not a timing threshold). */
function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

/** Samples the peak RSS while `work` runs. */
async function peakRssDuring(pid: number, work: () => Promise<void>): Promise<number> {
  let peak = rssOf(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssOf(pid));
    } catch {
      // the process is gone; the work will fail on its own
    }
  }, 10);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssOf(pid));
}

/** 1 MiB chunks, each a shared random block stamped with its index: 100 MiB without holding them. */
function* chunks(block: Buffer, n: number): Generator<Buffer> {
  for (let i = 0; i < n; i++) {
    const c = Buffer.from(block);
    c.writeUInt32BE(i, 0);
    yield c;
  }
}

function putStream(url: string, gen: Generator<Buffer>, size: number): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { 'content-length': String(size), 'content-type': 'application/octet-stream' } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    const pump = () => {
      for (;;) {
        const next = gen.next();
        if (next.done) return req.end();
        if (!req.write(next.value)) return req.once('drain', pump);
      }
    };
    pump();
  });
}

function getHashed(url: string): Promise<{ status: number; bytes: number; sha256: string; contentLength: string | undefined }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      const h = createHash('sha256');
      let bytes = 0;
      res.on('data', (d: Buffer) => {
        bytes += d.length;
        h.update(d);
      });
      res.on('end', () => resolve({ status: res.statusCode!, bytes, sha256: h.digest('hex'), contentLength: res.headers['content-length'] }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

describe('files: presigned transfers stream (memory bound)', () => {
  let home: string;
  let srv: ChildServer;
  let client: Client;
  let room: string;

  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(srv.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${srv.ownerToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await r.json()) as any;
  };
  const tool = async (name: string, args: Record<string, unknown>) => {
    const r: any = await client.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.structuredContent)}`);
    return r.structuredContent;
  };

  /** share_file, PUT, complete_file_upload, fetch_file, GET; each transfer under an RSS probe. */
  async function roundTrip(name: string, block: Buffer, n: number) {
    const h = createHash('sha256');
    for (const c of chunks(block, n)) h.update(c);
    const sha256 = h.digest('hex');
    const sh = await tool('share_file', { room, filename: name, content_type: 'application/octet-stream', size_bytes: n * MiB, sha256 });
    const before = rssOf(srv.proc.pid!);
    let put: { status: number; body: any } | undefined;
    const upPeak = await peakRssDuring(srv.proc.pid!, async () => {
      put = await putStream(sh.upload_url, chunks(block, n), n * MiB);
    });
    expect(put!.status).toBe(200);
    expect(put!.body).toMatchObject({ received_bytes: n * MiB, sha256, matches_declaration: true });
    expect((await tool('complete_file_upload', { file_id: sh.file_id })).status).toBe('ready');
    const f = await tool('fetch_file', { file_id: sh.file_id });
    const beforeDown = rssOf(srv.proc.pid!);
    let got: Awaited<ReturnType<typeof getHashed>> | undefined;
    const downPeak = await peakRssDuring(srv.proc.pid!, async () => {
      got = await getHashed(f.download_url);
    });
    expect(got).toEqual({ status: 200, bytes: n * MiB, sha256, contentLength: String(n * MiB) });
    return { upGrowth: upPeak - before, downGrowth: downPeak - beforeDown };
  }

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'agent-rooms-mem-'));
    srv = await spawnServer(home, ['--rate-limit', '0']);
    const agent = await api('POST', '/v1/agents', { name: 'Mover' });
    const cred = await api('POST', `/v1/agents/${agent.plate}/credentials`, { device: 'test' });
    room = (await api('POST', '/v1/rooms', { name: 'Memory' })).room_id;
    await api('POST', `/v1/rooms/${room}/members`, { plate: agent.plate });
    client = new Client({ name: 'mem-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${srv.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${cred.credential}` } } }),
    );
  });
  afterAll(async () => {
    await client?.close().catch(() => {});
    await srv?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it(`a ${FILE_MIB} MB upload and download grow the server's RSS by less than 64 MB`, async () => {
    const block = randomBytes(MiB);
    // Warm up every code path first, so the probe measures the transfer, not module loading.
    await roundTrip('warm-up.bin', block, 4);
    const { upGrowth, downGrowth } = await roundTrip('big.bin', block, FILE_MIB);
    expect(upGrowth, `upload RSS growth ${(upGrowth / MiB).toFixed(1)} MB`).toBeLessThan(RSS_BOUND);
    expect(downGrowth, `download RSS growth ${(downGrowth / MiB).toFixed(1)} MB`).toBeLessThan(RSS_BOUND);
  }, 180_000);
});
