/**
 * Benchmark of files: a 256 MiB upload and download through the presigned URLs, in MB/s,
 * beside a plain stream copy of the same bytes on the same disk in the same run (the ratio
 * is the figure); and write_file of 4 KiB files per second beside the SDK's bare echo tool
 * carrying the same 4 KiB. Rounds alternate the transfer and the copy. Run:
 * `npx tsx test/bench/files.ts`.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { startTestServer } from '../helpers/server.js';
import { benchClient, runLoad, startEchoBaseline } from './baseline.js';

export interface FilesBenchRow {
  bench: 'files';
  what: string;
  value: number;
  unit: string;
  baseline: string;
  baseline_value: number;
  /** value / baseline_value: 1 means as fast as the baseline. */
  ratio: number;
}

const MiB = 1024 * 1024;
const SIZE = 256 * MiB;
const ROUNDS = 3;
const SMALL_WRITES = 500;

/** Writes `SIZE` bytes (distinct per round, so blobs never dedupe) and returns their sha256. */
async function makeSource(file: string, round: number): Promise<string> {
  const block = randomBytes(MiB);
  const h = createHash('sha256');
  const out = createWriteStream(file);
  for (let i = 0; i < SIZE / MiB; i++) {
    const c = Buffer.from(block);
    c.writeUInt32BE(round, 0);
    c.writeUInt32BE(i, 4);
    h.update(c);
    if (!out.write(c)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  return h.digest('hex');
}

async function timedMBps(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return SIZE / MiB / ((performance.now() - t0) / 1000);
}

/** The plain copy: read stream to write stream, flushed to disk like an upload is. */
async function plainCopy(from: string, to: string): Promise<void> {
  await pipeline(createReadStream(from), createWriteStream(to, { flush: true }));
}

function putFile(url: string, file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { 'content-length': String(statSync(file).size) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    createReadStream(file).on('error', reject).pipe(req);
  });
}

function getToFile(url: string, file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      pipeline(res, createWriteStream(file, { flush: true })).then(() => resolve(res.statusCode!), reject);
    })
      .on('error', reject)
      .end();
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function runFilesBench(log: (line: string) => void = () => {}): Promise<FilesBenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'agent-rooms-bench-files-'));
  const s = await startTestServer({ home: join(work, 'home'), rateLimit: { perSecond: 0, burst: 0 } });
  const echo = await startEchoBaseline();
  try {
    const agent = await s.agent('Bench Mover');
    const room = await s.room('Bench files');
    await s.join(room, agent.plate);
    const client = await benchClient(s.running.mcpUrl, { authorization: `Bearer ${agent.credential}` });
    const tool = async (name: string, args: Record<string, unknown>) => {
      const r: any = await client.callTool({ name, arguments: args });
      if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.structuredContent)}`);
      return r.structuredContent;
    };

    const src = join(work, 'source.bin');
    const copy = join(work, 'copy.bin');
    const down = join(work, 'download.bin');
    const copies: number[] = [];
    const uploads: number[] = [];
    const downloads: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const sha256 = await makeSource(src, round);
      copies.push(await timedMBps(() => plainCopy(src, copy)));
      rmSync(copy);
      const sh = await tool('share_file', { room, filename: 'bench/big.bin', content_type: 'application/octet-stream', size_bytes: SIZE, sha256 });
      uploads.push(
        await timedMBps(async () => {
          const status = await putFile(sh.upload_url, src);
          if (status !== 200) throw new Error(`upload answered ${status}`);
        }),
      );
      await tool('complete_file_upload', { file_id: sh.file_id, version: sh.version });
      const f = await tool('fetch_file', { file_id: sh.file_id });
      downloads.push(
        await timedMBps(async () => {
          const status = await getToFile(f.download_url, down);
          if (status !== 200) throw new Error(`download answered ${status}`);
        }),
      );
      rmSync(down);
      log(`round ${round + 1}: copy ${copies[round]!.toFixed(0)} MB/s, upload ${uploads[round]!.toFixed(0)} MB/s, download ${downloads[round]!.toFixed(0)} MB/s`);
    }
    const copyMBps = median(copies);

    const content = 'x'.repeat(4096);
    const echoClient = await benchClient(echo.url);
    const echoRow = await runLoad('echo 4 KiB', 'sequential', [echoClient], (c) => c.callTool({ name: 'echo', arguments: { message: content } }), {
      perClient: SMALL_WRITES,
      warmup: 20,
    });
    const writeRow = await runLoad(
      'write_file 4 KiB',
      'sequential',
      [client],
      async (c, _ci, i) => {
        const r: any = await c.callTool({ name: 'write_file', arguments: { room, path: `bench/small/${i < 0 ? `w${-i}` : i}.txt`, content } });
        if (r.isError) throw new Error(JSON.stringify(r.structuredContent));
      },
      { perClient: SMALL_WRITES, warmup: 20 },
    );
    await echoClient.close();
    await client.close();

    const row = (what: string, value: number, unit: string, baseline: string, baselineValue: number): FilesBenchRow => ({
      bench: 'files',
      what,
      value: Math.round(value * 10) / 10,
      unit,
      baseline,
      baseline_value: Math.round(baselineValue * 10) / 10,
      ratio: Math.round((value / baselineValue) * 100) / 100,
    });
    return [
      row('presigned upload 256 MiB', median(uploads), 'MB/s', 'plain file copy', copyMBps),
      row('presigned download 256 MiB', median(downloads), 'MB/s', 'plain file copy', copyMBps),
      row('write_file 4 KiB', writeRow.calls_per_s, 'files/s', 'SDK echo 4 KiB', echoRow.calls_per_s),
    ];
  } finally {
    await echo.close();
    await s.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runFilesBench((l) => console.log(l))
    .then((rows) => {
      console.table(rows);
    })
    .catch((err) => {
      console.error(err);
      process.exitCode = 1;
    });
}
