// Item 12: a malformed percent-encoding in a UI path (or an API path parameter) is the
// client's mistake: a 400, never a 500 with a stack trace, and nothing logged as internal.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** A raw request: fetch() would re-encode the path, the attack sends the bytes as they are. */
function raw(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
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
    const r = await raw(s.running.port, path);
    expect(r.status).toBe(400);
    expect(r.body).not.toMatch(/URIError|at decodeURIComponent|\n\s+at /);
  });

  it('an API path parameter with a malformed encoding is a structured 400', async () => {
    const r = await raw(s.running.port, '/v1/rooms/%E0%A4%A', { authorization: `Bearer ${s.ownerToken}` });
    expect(r.status).toBe(400);
    const body = JSON.parse(r.body);
    expect(body.error.code).toBe('INVALID_ARGUMENT');
    expect(body.error.error_id).toMatch(/^err_/);
  });

  it('logged nothing as an internal error', () => {
    expect(logs.filter((l) => l.includes('internal error'))).toEqual([]);
  });
});
