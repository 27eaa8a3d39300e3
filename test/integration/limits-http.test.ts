import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpTimeouts } from '../../src-main/core/http/server.js';
import { startTestServer, ok, type TestServer, type TestAgent } from '../helpers/server.js';

/**
 * Resource limits on the wire: bodies over 1 MiB are refused before they are read whole and
 * the connection is closed; a client dribbling headers or a body is cut off while a normal
 * client keeps being served. The timeouts are shortened for the test (the defaults are
 * 20 s for headers and 30 s for a body) through the exported httpTimeouts.
 */

const MIB = 1024 * 1024;

interface RawResult {
  status: number | null;
  /** Bytes of body this client managed to write before the server answered or closed. */
  sentBeforeAnswer: number;
  closedByServer: boolean;
  ms: number;
}

/** Opens a raw connection, writes the head, then body chunks from `chunks` until the server answers or closes. */
function raw(port: number, head: string, chunks: () => Buffer | null, pauseMs = 0, maxMs = 30_000): Promise<RawResult> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const sock: Socket = connect(port, '127.0.0.1');
    let status: number | null = null;
    let sent = 0;
    let sentAtAnswer = -1;
    let closed = false;
    let buf = '';
    const finish = () => {
      clearTimeout(guard);
      sock.destroy();
      resolve({ status, sentBeforeAnswer: sentAtAnswer >= 0 ? sentAtAnswer : sent, closedByServer: closed, ms: Date.now() - t0 });
    };
    const guard = setTimeout(finish, maxMs);
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(buf);
      if (m && status === null) {
        status = Number(m[1]);
        sentAtAnswer = sent;
      }
    });
    sock.on('close', () => {
      closed = true;
      finish();
    });
    sock.on('error', () => {});
    sock.on('connect', async () => {
      sock.write(head);
      for (;;) {
        if (closed || sock.destroyed) return;
        const c = chunks();
        if (!c) return;
        const flushed = sock.write(c);
        sent += c.length;
        if (!flushed) await new Promise((r) => sock.once('drain', r).once('close', r));
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
  });
}

describe('resource limits on the wire', () => {
  let s: TestServer;
  let a: TestAgent;
  let room: string;
  const saved = { ...httpTimeouts };

  beforeAll(async () => {
    httpTimeouts.headersMs = 1500;
    httpTimeouts.bodyMs = 1500;
    s = await startTestServer();
    a = await s.agent('Limits');
    room = await s.room('Limits');
    await s.join(room, a.plate);
  });
  afterAll(async () => {
    await s.stop();
    Object.assign(httpTimeouts, saved);
  });

  const host = () => `127.0.0.1:${s.running.port}`;

  for (const [label, path, auth] of [
    ['/mcp', '/mcp', () => `authorization: Bearer ${a.credential}\r\naccept: application/json, text/event-stream\r\n`],
    ['/v1', '/v1/rooms', () => `authorization: Bearer ${s.ownerToken}\r\n`],
  ] as const) {
    it(`${label}: a declared body over 1 MiB is refused with 413 before any of it is read, and the connection closes`, async () => {
      const r = await raw(
        s.running.port,
        `POST ${path} HTTP/1.1\r\nhost: ${host()}\r\ncontent-type: application/json\r\ncontent-length: ${8 * MIB}\r\n${auth()}\r\n`,
        (() => {
          let n = 0;
          return () => (n++ < 128 ? Buffer.alloc(64 * 1024, 0x20) : null);
        })(),
      );
      expect(r.status).toBe(413);
      expect(r.closedByServer).toBe(true);
      expect(r.sentBeforeAnswer).toBeLessThan(8 * MIB);
    });

    it(`${label}: a chunked body that grows past 1 MiB is cut off near the limit, not drained`, async () => {
      const r = await raw(
        s.running.port,
        `POST ${path} HTTP/1.1\r\nhost: ${host()}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n${auth()}\r\n`,
        (() => {
          let n = 0;
          const chunk = Buffer.concat([Buffer.from((64 * 1024).toString(16) + '\r\n'), Buffer.alloc(64 * 1024, 0x20), Buffer.from('\r\n')]);
          return () => (n++ < 512 ? chunk : null); // up to 32 MiB
        })(),
      );
      console.log(`${label} chunked flood: answered ${r.status} after ${(r.sentBeforeAnswer / MIB).toFixed(1)} MiB sent, closed: ${r.closedByServer}`);
      expect(r.status).toBe(413);
      expect(r.closedByServer).toBe(true);
      // Socket buffers hold a few MiB at most; a server that drained the body would take all 32.
      expect(r.sentBeforeAnswer).toBeLessThan(16 * MIB);
    });
  }

  for (const path of ['/mcp', '/v1/rooms']) {
    it(`${path}: an unauthenticated client streaming a huge body gets 401 and is cut off, not drained`, async () => {
      const chunk = Buffer.concat([Buffer.from((64 * 1024).toString(16) + '\r\n'), Buffer.alloc(64 * 1024, 0x20), Buffer.from('\r\n')]);
      let n = 0;
      const r = await raw(
        s.running.port,
        `POST ${path} HTTP/1.1\r\nhost: ${host()}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n`,
        () => (n++ < 512 ? chunk : null),
      );
      expect(r.status).toBe(401);
      expect(r.closedByServer).toBe(true);
      expect(r.sentBeforeAnswer).toBeLessThan(16 * MIB);
    });
  }

  it('slowloris on headers: a client dribbling header lines is cut off while a normal client is served', async () => {
    const c = await s.connect(a.credential);
    let n = 0;
    const slow = raw(s.running.port, `POST /mcp HTTP/1.1\r\nhost: ${host()}\r\n`, () => Buffer.from(`x-drip-${n++}: ${'a'.repeat(10)}\r\n`), 200, 20_000);
    // Served normally meanwhile.
    for (let i = 0; i < 5; i++) expect((await ok(c, 'whoami')).plate).toBe(a.plate);
    const r = await slow;
    console.log(`header slowloris: cut off after ${r.ms} ms (status ${r.status ?? 'none'})`);
    expect(r.closedByServer).toBe(true);
    expect(r.ms).toBeLessThan(20_000);
  });

  for (const [label, path, auth] of [
    ['/mcp', '/mcp', () => `authorization: Bearer ${a.credential}\r\naccept: application/json, text/event-stream\r\n`],
    ['/v1', '/v1/rooms', () => `authorization: Bearer ${s.ownerToken}\r\n`],
  ] as const) {
    it(`${label}: slowloris on the body: a client dribbling a body byte by byte is cut off while a normal client is served`, async () => {
      const c = await s.connect(a.credential);
      const slow = raw(
        s.running.port,
        `POST ${path} HTTP/1.1\r\nhost: ${host()}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n${auth()}\r\n`,
        () => Buffer.from(' '),
        100,
        20_000,
      );
      for (let i = 0; i < 5; i++) expect((await ok<{ message_id: string }>(c, 'send_message', { room, body: `served ${i}` })).message_id).toMatch(/^msg_/);
      const r = await slow;
      console.log(`${label} body slowloris: cut off after ${r.ms} ms with ${r.status}`);
      expect(r.closedByServer).toBe(true);
      expect(r.status).toBe(408);
      expect(r.ms).toBeLessThan(20_000);
    });
  }
});

/** A raw request: fetch() would re-encode the path, the attack sends the bytes as they are. */
function rawGet(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

// Folded from test/security/12-percent-encoding.test.ts (docs/security.md item 12): a malformed
// percent-encoding in a UI path (or an API path parameter) is the client's mistake: a 400, never a
// 500 with a stack trace, and nothing logged as internal. Its own server: it serves a UI folder and
// keeps the log.
describe('item 12: malformed percent-encoding', () => {
  let s: TestServer;
  let uiDir: string;
  const logs: string[] = [];

  beforeAll(async () => {
    uiDir = mkdtempSync(join(tmpdir(), 'agent-rooms-ui-'));
    writeFileSync(join(uiDir, 'index.html'), '<!doctype html><title>ui</title>');
    s = await startTestServer({ uiDir, log: (l) => logs.push(l) });
  });
  afterAll(async () => {
    await s?.stop();
    rmSync(uiDir, { recursive: true, force: true });
  });

  it.each(['/%E0%A4%A', '/%', '/rooms/%zz', '/assets/%C0%AF.js', '/%ED%A0%80'])('UI path %s is a 400 without a stack', async (path) => {
    const r = await rawGet(s.running.port, path);
    expect(r.status).toBe(400);
    expect(r.body).not.toMatch(/URIError|at decodeURIComponent|\n\s+at /);
  });

  it('an API path parameter with a malformed encoding is a structured 400', async () => {
    const r = await rawGet(s.running.port, '/v1/rooms/%E0%A4%A', { authorization: `Bearer ${s.ownerToken}` });
    expect(r.status).toBe(400);
    const body = JSON.parse(r.body);
    expect(body.error.code).toBe('INVALID_ARGUMENT');
    expect(body.error.error_id).toMatch(/^err_/);
  });

  it('logged nothing as an internal error', () => {
    expect(logs.filter((l) => l.includes('internal error'))).toEqual([]);
  });
});
