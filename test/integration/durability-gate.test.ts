import { describe, it, expect, afterAll } from 'vitest';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holdWritesUntil } from '../../src-main/core/http/write-gate.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/core.js';

describe('writes wait for the start-up integrity check', () => {
  it('while a large file is being checked, GETs are served and other requests wait; they run once it passed', async () => {
    const served: string[] = [];
    const server = createServer((req, res) => {
      served.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${req.method} ${req.url}`);
    });
    let pass!: () => void;
    const check = new Promise<void>((r) => (pass = r));
    holdWritesUntil(server, check);
    let arrived = 0; // requests the server has received (held or served)
    server.on('request', () => arrived++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      expect(await (await fetch(`${base}/v1/me`)).text()).toBe('GET /v1/me');
      let posted = false;
      const post = fetch(`${base}/v1/rooms`, { method: 'POST', body: '{}' }).then(async (r) => {
        posted = true;
        return r.text();
      });
      const login = fetch(`${base}/login?token=x`).then((r) => r.text());
      await waitFor(() => arrived === 3, 'the POST and the login to reach the server');
      // The gate decides as a request arrives (before the counter above sees it): both are held, unhandled.
      expect(served).toEqual(['GET /v1/me']);
      expect(posted).toBe(false);
      pass();
      expect(await post).toBe('POST /v1/rooms');
      expect(await login).toBe('GET /login?token=x');
    } finally {
      server.close();
    }
  });

  it('when the check fails, the waiting requests get a structured 503, never a write', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200);
      res.end('written');
    });
    let fail!: (e: Error) => void;
    const check = new Promise<void>((_r, j) => (fail = j));
    holdWritesUntil(server, check);
    let arrived = 0; // requests the server has received (held or served)
    server.on('request', () => arrived++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const post = fetch(`${base}/v1/rooms`, { method: 'POST', body: '{}' });
      await waitFor(() => arrived === 1, 'the POST to reach the server');
      fail(new Error('damaged'));
      const res = await post;
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { code: string; error_id: string } };
      expect(body.error.code).toBe('UNAVAILABLE');
      expect(body.error.error_id).toMatch(/^err_/);
    } finally {
      server.close();
    }
  });
});

describe('durability settings', () => {
  const homes: string[] = [];
  afterAll(() => homes.forEach((h) => rmSync(h, { recursive: true, force: true })));

  it('the store runs asynchronous commit by default (NORMAL on the connection, a WAL sync started with each answer), FULL when asked', async () => {
    const home = mkdtempSync(join(tmpdir(), 'ar-sync-'));
    homes.push(home);
    const s = await startTestServer({ home });
    try {
      // docs/performance.md, "Asynchronous commit": commits do not fsync; the sync starts as a write is acknowledged.
      expect(s.running.core.db.pragma('synchronous', { simple: true })).toBe(1);
      await s.room('Asynchronous commit room');
      await s.running.core.durable();
    } finally {
      await s.stop();
    }
    const f = await startTestServer({ home, synchronous: 'FULL' });
    try {
      expect(f.running.core.db.pragma('synchronous', { simple: true })).toBe(2);
    } finally {
      await f.stop();
    }
  });
});
