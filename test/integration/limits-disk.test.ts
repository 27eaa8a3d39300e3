import { describe, it, expect } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort } from '../load/crash.js';
import { startTestServer, ok, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/core.js';
import { cliArgs, scriptArgs } from '../helpers/cli-bundle.js';
import { dbConsistency } from '../load/arbitraries.js';

/**
 * Disk full. Honestly, when the kernel allows it: the server runs in a user+mount namespace
 * (`unshare -rm`) whose home is a 6 MiB tmpfs, filled by writes until the disk is really full
 * (ENOSPC for blobs, SQLITE_FULL for the database). Every refused write must be a retryable
 * UNAVAILABLE with an error_id, leave nothing behind, and succeed once space is freed when
 * retried with the same idempotency key; SQLite and the blobs stay consistent.
 * Where namespaces are not available, the database alone is made full with SQLite's
 * max_page_count on the server's own connection (documented in docs/testing.md).
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const canUnshare = spawnSync('unshare', ['-rm', 'true']).status === 0;

// $1 home (the mount point), $2 port, $3 and $4 the node arguments of the CLI and of the checker, one
// per line (cli-bundle.ts: the run's bundles, or the sources through tsx). USR1 frees the ballast (and
// says so), TERM stops the server; then the checker runs.
const SCRIPT = `
set -u
H="$1"; PORT="$2"; CLI="$3"; CHECK="$4"
NL='
'
mount -t tmpfs -o size=6m tmpfs "$H" || exit 90
head -c 1572864 /dev/zero > "$H/.ballast"
trap 'rm -f "$H/.ballast"; echo BALLAST_FREED' USR1
trap 'kill -TERM $P' TERM
IFS="$NL"
node $CLI serve --port "$PORT" --home "$H" --rate-limit 0 &
P=$!
while [ ! -f "$H/server.json" ] && kill -0 $P 2>/dev/null; do sleep 0.1; done
echo "OWNER_TOKEN $(cat "$H/owner-token")"
while kill -0 $P 2>/dev/null; do wait $P || true; done
node $CHECK "$H"
`;

interface Tiny {
  proc: ChildProcess;
  exited: Promise<number>;
  port: number;
  token: string;
  out: () => string;
}

function startTiny(home: string, port: number): Promise<Tiny> {
  const proc = spawn('unshare', ['-rm', 'sh', '-c', SCRIPT, 'sh', home, String(port), cliArgs().join('\n'), scriptArgs('integrity').join('\n')], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise<number>((r) => proc.once('exit', () => r(Date.now())));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tiny-disk server not ready\n${out}\n${err}`)), 40_000);
    const early = (code: number | null) => reject(new Error(`tiny-disk server exited ${code}\n${out}\n${err}`));
    proc.once('exit', early);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const t = /OWNER_TOKEN (\S+)/.exec(out);
      if (t && /listening on/.test(out)) {
        clearTimeout(timer);
        proc.off('exit', early);
        resolve({ proc, exited, port, token: t[1]!, out: () => out + err });
      }
    });
  });
}

async function api(base: string, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(base + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return res.json();
}

const expectRetryable = (e: any) => {
  expect(e.code).toBe('UNAVAILABLE');
  expect(e.retryable).toBe(true);
  expect(e.http_status).toBe(503);
  expect(e.error_id).toMatch(/^err_/);
};

describe('disk full', () => {
  it.runIf(canUnshare)('on a real 6 MiB tmpfs: refused writes are retryable, leave nothing half written, and succeed with the same key once space is freed', { timeout: 120_000 }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'agent-rooms-tiny-'));
    const port = await freePort();
    const tiny = await startTiny(home, port);
    const base = `http://127.0.0.1:${port}`;
    try {
      const agent = await api(base, tiny.token, 'POST', '/v1/agents', { name: 'Filler' });
      const cred = (await api(base, tiny.token, 'POST', `/v1/agents/${agent.plate}/credentials`, { device: 'd' })).credential;
      const room = (await api(base, tiny.token, 'POST', '/v1/rooms', { name: 'Tiny' })).room_id;
      await api(base, tiny.token, 'POST', `/v1/rooms/${room}/members`, { plate: agent.plate });
      const c = new Client({ name: 'filler', version: '1' });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${cred}` } } }));

      const written = new Map<string, string>();
      const refused: Array<{ path: string; content: string; key: string; sha: string }> = [];
      for (let i = 0; i < 60 && refused.length < 3; i++) {
        const bytes = randomBytes(200 * 1024);
        const path = `fill/${i}.bin`;
        const args = { room, path, content: bytes.toString('base64'), encoding: 'base64', idempotency_key: `fill-${i}` };
        const r: any = await c.callTool({ name: 'write_file', arguments: args });
        const sha = createHash('sha256').update(bytes).digest('hex');
        if (r.isError) {
          expectRetryable(r.structuredContent.error);
          refused.push({ path, content: args.content, key: args.idempotency_key, sha });
        } else written.set(path, sha);
      }
      // A message while the disk is full: refused the same way, or (small) still fits.
      const msg: any = await c.callTool({ name: 'send_message', arguments: { room, body: 'while full', idempotency_key: 'full-msg' } });
      if (msg.isError) expectRetryable(msg.structuredContent.error);
      console.log(`tiny disk: ${written.size} files written, then ${refused.length} refused; message while full: ${msg.isError ? 'refused' : 'accepted'}`);
      expect(written.size).toBeGreaterThan(0);
      expect(refused.length).toBe(3);

      // Nothing half written: refused paths do not exist; written ones read back byte for byte.
      const listed = (await ok(c, 'list_files', { room })).files.map((f: any) => f.path);
      for (const r of refused) expect(listed).not.toContain(r.path);
      for (const [path, sha] of written) {
        const f = await ok(c, 'read_file', { room, path });
        const bytes = Buffer.from(f.content, f.encoding === 'base64' ? 'base64' : 'utf8');
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(sha);
      }

      // Free space, then retry with the same keys: each write lands exactly once.
      tiny.proc.kill('SIGUSR1');
      await waitFor(() => tiny.out().includes('BALLAST_FREED'), 'the ballast to be freed');
      for (const r of refused) {
        const again = await ok(c, 'write_file', { room, path: r.path, content: r.content, encoding: 'base64', idempotency_key: r.key });
        expect(again.sha256).toBe(r.sha);
        expect(again.version).toBe(1);
      }
      const m = await ok(c, 'send_message', { room, body: 'while full', idempotency_key: 'full-msg' });
      const history = await ok(c, 'read_room', { room, limit: 200 });
      expect(history.messages.filter((x: any) => x.body === 'while full').map((x: any) => x.message_id)).toEqual([m.message_id]);
      await c.close();
    } finally {
      const t0 = Date.now();
      tiny.proc.kill('SIGTERM');
      const exitedAt = await Promise.race([tiny.exited, new Promise<number>((r) => setTimeout(() => r(-1), 30_000))]);
      console.log(`stopped: ${exitedAt < 0 ? 'no exit within 30 s' : `${exitedAt - t0} ms after SIGTERM`}`);
      if (tiny.proc.exitCode === null) tiny.proc.kill('SIGKILL');
      rmSync(home, { recursive: true, force: true });
    }
    const line = /INTEGRITY (.*)/.exec(tiny.out());
    expect(line, tiny.out().slice(-2000)).not.toBeNull();
    const check = JSON.parse(line![1]!) as { integrity: string; foreignKeyViolations: number; blobs: number; badBlobs: string[] };
    expect(check.integrity).toBe('ok');
    expect(check.foreignKeyViolations).toBe(0);
    expect(check.badBlobs).toEqual([]);
    expect(check.blobs).toBeGreaterThan(3);
  });

  it('database full (max_page_count): a refused message is retryable, stores nothing, and lands once when retried', async () => {
    const s: TestServer = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
    try {
      const a = await s.agent('Full');
      const room = await s.room('Full');
      await s.join(room, a.plate);
      const c = await s.connect(a.credential);
      const db = s.running.core.db;
      db.pragma('wal_checkpoint(TRUNCATE)');
      const pages = db.pragma('page_count', { simple: true }) as number;
      db.pragma(`max_page_count = ${pages}`);
      let refusedAt = -1;
      for (let i = 0; i < 500 && refusedAt < 0; i++) {
        const r: any = await c.callTool({ name: 'send_message', arguments: { room, body: `fill ${i} ${'x'.repeat(30_000)}`, idempotency_key: `k${i}` } });
        if (r.isError) {
          expectRetryable(r.structuredContent.error);
          refusedAt = i;
        }
      }
      expect(refusedAt).toBeGreaterThanOrEqual(0);
      const countOf = (i: number) => (db.prepare('SELECT COUNT(*) AS n FROM messages WHERE body LIKE ?').get(`fill ${i} %`) as { n: number }).n;
      expect(countOf(refusedAt)).toBe(0);
      db.pragma('max_page_count = 1073741823');
      await ok(c, 'send_message', { room, body: `fill ${refusedAt} ${'x'.repeat(30_000)}`, idempotency_key: `k${refusedAt}` });
      await ok(c, 'send_message', { room, body: `fill ${refusedAt} ${'x'.repeat(30_000)}`, idempotency_key: `k${refusedAt}` });
      expect(countOf(refusedAt)).toBe(1);
      const cons = dbConsistency(db);
      expect(cons.integrity).toBe('ok');
      expect(cons.foreignKeyViolations).toBe(0);
    } finally {
      await s.stop();
    }
  });
});
