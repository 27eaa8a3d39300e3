import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawnServer, type ChildServer } from '../helpers/child.js';
import { waitFor } from '../helpers/core.js';

const MiB = 1024 * 1024;

describe('files: a crash mid-upload', () => {
  const home = mkdtempSync(join(tmpdir(), 'agent-rooms-crash-'));
  let srv: ChildServer | undefined;
  afterAll(async () => {
    await srv?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  async function connect(s: ChildServer, credential: string) {
    const c = new Client({ name: 'crash-test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${s.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${credential}` } } }));
    return c;
  }

  it('leaves no half file under a sha256 name, and the upload stays quarantined after restart', async () => {
    srv = await spawnServer(home, ['--rate-limit', '0']);
    const api = async (method: string, path: string, body?: unknown) =>
      (await (
        await fetch(srv!.baseUrl + path, {
          method,
          headers: { authorization: `Bearer ${srv!.ownerToken}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).json()) as any;
    const agent = await api('POST', '/v1/agents', { name: 'Crasher' });
    const cred = (await api('POST', `/v1/agents/${agent.plate}/credentials`, { device: 'test' })).credential;
    const room = (await api('POST', '/v1/rooms', { name: 'Crash' })).room_id;
    await api('POST', `/v1/rooms/${room}/members`, { plate: agent.plate });
    let c = await connect(srv, cred);
    const bytes = randomBytes(32 * MiB);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const sh: any = (await c.callTool({ name: 'share_file', arguments: { room, filename: 'big.bin', content_type: 'application/octet-stream', size_bytes: bytes.length, sha256 } }))
      .structuredContent;

    // Send half the body, wait until the server has written some of it, then kill the server.
    const req = request(sh.upload_url, { method: 'PUT', headers: { 'content-length': String(bytes.length) } });
    req.on('error', () => {});
    req.write(bytes.subarray(0, 16 * MiB));
    const tmp = join(home, 'blobs', 'tmp');
    await waitFor(() => readdirSync(tmp).some((n) => n.endsWith('.part')), 'a partial upload on disk');
    await srv.kill();
    req.destroy();
    await c.close().catch(() => {});

    srv = await spawnServer(home, ['--rate-limit', '0']);
    c = await connect(srv, cred);
    const shaNamed = readdirSync(join(home, 'blobs'), { recursive: true }).map(String).filter((n) => /[0-9a-f]{64}$/.test(n));
    expect(shaNamed).toEqual([]);
    const done: any = await c.callTool({ name: 'complete_file_upload', arguments: { file_id: sh.file_id } });
    expect(done.isError).toBe(true);
    expect(done.structuredContent.error.reason).toBe('upload_missing');
    const listed: any = await c.callTool({ name: 'list_files', arguments: { room } });
    expect(listed.structuredContent.files).toMatchObject([{ file_id: sh.file_id, status: 'quarantined' }]);
    // The same signed URL (on the new port: the test picks a free one each start) takes the whole body now.
    const again = new URL(sh.upload_url);
    again.port = String(srv.port);
    const status = await new Promise<number>((resolve, reject) => {
      const r = request(again, { method: 'PUT', headers: { 'content-length': String(bytes.length) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      r.on('error', reject);
      r.end(bytes);
    });
    expect(status).toBe(200);
    const ok: any = await c.callTool({ name: 'complete_file_upload', arguments: { file_id: sh.file_id } });
    expect(ok.structuredContent).toMatchObject({ status: 'ready', sha256 });
    await c.close();
  }, 120_000);
});
