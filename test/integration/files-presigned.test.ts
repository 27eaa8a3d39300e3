import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, ok, fails, type TestServer } from '../helpers/server.js';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

async function put(url: string, body: Buffer) {
  const r = await fetch(url, { method: 'PUT', body, headers: { 'content-type': 'application/octet-stream' } });
  const text = await r.text();
  let json: any = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: r.status, body: json };
}

/** A presigned URL signed with the server's own key, to test expiry without waiting for it. */
function forge(home: string, op: 'upload' | 'download', base: string, fileId: string, version: number, exp: number) {
  const key = Buffer.from(readFileSync(join(home, 'keys', 'url-hmac.key'), 'utf8').trim(), 'base64');
  const sig = createHmac('sha256', key).update(`agent-rooms/${op}\n${fileId}\n${version}\n${exp}`).digest('base64url');
  return `${base}/files/${op}/${fileId}?v=${version}&exp=${exp}&sig=${sig}`;
}

describe('files: presigned flow', () => {
  let s: TestServer;
  let c: Client;
  let other: Client;
  let room: string;

  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
    const a = await s.agent('Uploader');
    const b = await s.agent('Reader');
    room = await s.room('Big files');
    await s.join(room, a.plate);
    await s.join(room, b.plate);
    c = await s.connect(a.credential);
    other = await s.connect(b.credential);
  });
  afterAll(async () => s.stop());

  async function share(bytes: Buffer, filename: string, extra: Record<string, unknown> = {}) {
    return ok(c, 'share_file', { room, filename, content_type: 'application/pdf', size_bytes: bytes.length, sha256: sha(bytes), ...extra });
  }

  it('share_file, PUT, complete_file_upload, fetch_file, GET: bytes, Content-Type and Content-Length', async () => {
    const bytes = randomBytes(1024 * 1024 + 13);
    const sh = await share(bytes, 'reports/q3.pdf');
    expect(sh).toMatchObject({ path: 'reports/q3.pdf', filename: 'q3.pdf', version: 1, kind: 'presigned', status: 'quarantined', read_with: 'fetch_file' });
    const up = new URL(sh.upload_url);
    expect(up.origin).toBe(s.baseUrl);
    expect(up.pathname).toBe(`/files/upload/${sh.file_id}`);
    expect(Date.parse(sh.expires_at) - Date.now()).toBeGreaterThan(14 * 60 * 1000);
    expect(Date.parse(sh.expires_at) - Date.now()).toBeLessThanOrEqual(15 * 60 * 1000);

    // Quarantined: the uploader sees it as such, others do not see it at all, nobody reads it.
    expect((await ok(c, 'list_files', { room, prefix: 'reports/' })).files).toMatchObject([{ status: 'quarantined', file_id: sh.file_id }]);
    expect((await ok(other, 'list_files', { room, prefix: 'reports/' })).files).toEqual([]);
    expect((await fails(c, 'fetch_file', { file_id: sh.file_id })).reason).toBe('quarantined');
    expect((await fails(other, 'fetch_file', { file_id: sh.file_id })).code).toBe('NOT_FOUND');
    expect((await fails(c, 'read_file', { room, file_id: sh.file_id, range: { start: 0, end: 10 } })).reason).toBe('quarantined');
    expect((await fails(c, 'complete_file_upload', { file_id: sh.file_id })).reason).toBe('upload_missing');

    const p = await put(sh.upload_url, bytes);
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ received_bytes: bytes.length, sha256: sha(bytes), matches_declaration: true, status: 'quarantined' });
    // The bytes arrived but are still not served before complete_file_upload.
    expect((await fails(c, 'fetch_file', { file_id: sh.file_id })).reason).toBe('quarantined');

    const done = await ok(c, 'complete_file_upload', { file_id: sh.file_id });
    expect(done).toMatchObject({ file_id: sh.file_id, version: 1, status: 'ready', kind: 'presigned', size_bytes: bytes.length, sha256: sha(bytes) });
    const again = await ok(c, 'complete_file_upload', { file_id: sh.file_id });
    expect(again.replayed).toBe(true);
    const { replayed: _r, ...firstAgain } = again;
    expect(firstAgain).toEqual(done);

    const listed = (await ok(other, 'list_files', { room, prefix: 'reports/' })).files;
    expect(listed).toMatchObject([{ path: 'reports/q3.pdf', kind: 'presigned', read_with: 'fetch_file', status: 'ready', size_bytes: bytes.length }]);

    const f = await ok(other, 'fetch_file', { file_id: sh.file_id });
    expect(new URL(f.download_url).pathname).toBe(`/files/download/${sh.file_id}`);
    const g = await fetch(f.download_url);
    expect(g.status).toBe(200);
    expect(g.headers.get('content-type')).toBe('application/pdf');
    expect(g.headers.get('content-length')).toBe(String(bytes.length));
    expect(g.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await g.arrayBuffer()).equals(bytes)).toBe(true);

    // Ranges: a slice, an open end, a suffix, and one past the end.
    const r1 = await fetch(f.download_url, { headers: { range: 'bytes=100-199' } });
    expect(r1.status).toBe(206);
    expect(r1.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`);
    expect(r1.headers.get('content-length')).toBe('100');
    expect(Buffer.from(await r1.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);
    const r2 = await fetch(f.download_url, { headers: { range: `bytes=${bytes.length - 5}-` } });
    expect(Buffer.from(await r2.arrayBuffer()).equals(bytes.subarray(bytes.length - 5))).toBe(true);
    const r3 = await fetch(f.download_url, { headers: { range: 'bytes=-7' } });
    expect(r3.status).toBe(206);
    expect(Buffer.from(await r3.arrayBuffer()).equals(bytes.subarray(bytes.length - 7))).toBe(true);
    const r4 = await fetch(f.download_url, { headers: { range: `bytes=${bytes.length}-` } });
    expect(r4.status).toBe(416);
    expect(r4.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    await r4.arrayBuffer();
    const head = await fetch(f.download_url, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe(String(bytes.length));

    // read_file can read a range of a presigned file inline, not the whole large file.
    const part = await ok(other, 'read_file', { room, file_id: sh.file_id, range: { start: 10, end: 19 } });
    expect(Buffer.from(part.content, part.encoding === 'base64' ? 'base64' : 'utf8').equals(bytes.subarray(10, 20))).toBe(true);
    expect((await fails(other, 'read_file', { room, file_id: sh.file_id })).reason).toBe('use_fetch_file');
    // The upload URL is spent once the file is released.
    expect((await put(sh.upload_url, bytes)).status).toBe(409);
  });

  it('a wrong sha256 stays quarantined and says why; the right bytes can still be sent', async () => {
    const bytes = randomBytes(5000);
    const wrong = randomBytes(5000);
    const sh = await share(bytes, 'wrong-sha.bin');
    expect((await put(sh.upload_url, wrong)).body.matches_declaration).toBe(false);
    const e = await fails(c, 'complete_file_upload', { file_id: sh.file_id });
    expect(e).toMatchObject({ code: 'CONFLICT', reason: 'sha256_mismatch' });
    expect(e.message).toContain('quarantined');
    expect((await ok(c, 'list_files', { room, prefix: 'wrong-sha' })).files).toMatchObject([{ status: 'quarantined' }]);
    expect((await fails(c, 'fetch_file', { file_id: sh.file_id })).reason).toBe('quarantined');
    expect((await ok(other, 'list_files', { room, prefix: 'wrong-sha' })).files).toEqual([]);
    const human = (await s.api('GET', `/v1/rooms/${room}/files`)).body.files.find((f: any) => f.file_id === sh.file_id);
    expect(human.versions).toMatchObject([{ version: 1, status: 'quarantined', quarantine_reason: 'sha256_mismatch' }]);
    // The rejected bytes are not kept under any sha256 name.
    expect(readdirSync(join(s.home, 'blobs'), { recursive: true }).some((n) => String(n).includes(sha(wrong)))).toBe(false);
    expect((await put(sh.upload_url, bytes)).status).toBe(200);
    expect((await ok(c, 'complete_file_upload', { file_id: sh.file_id })).status).toBe('ready');
  });

  it('a wrong size stays quarantined; a body over the declared size is refused', async () => {
    const bytes = randomBytes(4096);
    const sh = await share(bytes, 'wrong-size.bin');
    expect((await put(sh.upload_url, bytes.subarray(0, 4000))).status).toBe(200);
    expect((await fails(c, 'complete_file_upload', { file_id: sh.file_id })).reason).toBe('size_mismatch');
    expect((await ok(c, 'list_files', { room, prefix: 'wrong-size' })).files[0].status).toBe('quarantined');
    const over = await put(sh.upload_url, Buffer.concat([bytes, Buffer.from('x')]));
    expect(over.status).toBe(413);
    // The refused body was never recorded: there is still nothing to release.
    expect((await fails(c, 'complete_file_upload', { file_id: sh.file_id })).reason).toBe('upload_missing');
    const human = (await s.api('GET', `/v1/rooms/${room}/files`)).body.files.find((f: any) => f.file_id === sh.file_id);
    expect(human.versions).toMatchObject([{ status: 'quarantined', quarantine_reason: 'size_mismatch' }]);
    expect((await fails(c, 'fetch_file', { file_id: sh.file_id })).reason).toBe('quarantined');
  });

  it('refuses expired and tampered URLs', async () => {
    const bytes = randomBytes(2000);
    const sh = await share(bytes, 'guarded.bin');
    const u = new URL(sh.upload_url);
    const past = Math.floor(Date.now() / 1000) - 1;
    const expired = await put(forge(s.home, 'upload', s.baseUrl, sh.file_id, 1, past), bytes);
    expect(expired.status).toBe(403);
    expect(expired.body.error.reason).toBe('url_expired');
    const sig = u.searchParams.get('sig')!;
    const flipped = new URL(u);
    flipped.searchParams.set('sig', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
    const longer = new URL(u);
    longer.searchParams.set('exp', String(Number(u.searchParams.get('exp')) + 3600));
    const otherVersion = new URL(u);
    otherVersion.searchParams.set('v', '2');
    const noSig = new URL(u);
    noSig.searchParams.delete('sig');
    const otherOp = new URL(u);
    otherOp.pathname = otherOp.pathname.replace('/upload/', '/download/');
    for (const bad of [flipped, longer, otherVersion, noSig]) {
      const r = await put(bad.toString(), bytes);
      expect(r.status, bad.search).toBe(403);
      expect(r.body.error.reason).toBe('bad_signature');
    }
    const r = await fetch(otherOp);
    expect(r.status).toBe(403);
    await r.arrayBuffer();
    // None of it delivered bytes.
    expect((await fails(c, 'complete_file_upload', { file_id: sh.file_id })).reason).toBe('upload_missing');
    expect((await put(sh.upload_url, bytes)).status).toBe(200);
    await ok(c, 'complete_file_upload', { file_id: sh.file_id });
    const dl = new URL((await ok(c, 'fetch_file', { file_id: sh.file_id })).download_url);
    const expiredDl = await fetch(forge(s.home, 'download', s.baseUrl, sh.file_id, 1, past));
    expect(expiredDl.status).toBe(403);
    expect(((await expiredDl.json()) as any).error.reason).toBe('url_expired');
    const swapped = new URL(dl);
    swapped.pathname = `/files/download/file_${'0'.repeat(26)}`;
    expect((await fetch(swapped)).status).toBe(403);
    expect((await fetch(dl, { method: 'POST' })).status).toBe(405);
  });

  it('share_file: idempotency key, size limit, versions of a shared path, deletion of pending uploads', async () => {
    const bytes = randomBytes(100);
    const a = await share(bytes, 'idem.bin', { idempotency_key: 'share-1' });
    const b = await share(bytes, 'idem.bin', { idempotency_key: 'share-1' });
    expect(b.replayed).toBe(true);
    expect([b.file_id, b.version, b.upload_url]).toEqual([a.file_id, a.version, a.upload_url]);
    const big = await fails(c, 'share_file', { room, filename: 'huge.bin', content_type: 'application/octet-stream', size_bytes: 2 * 1024 ** 3 + 1, sha256: sha('x') });
    expect(big.code).toBe('PAYLOAD_TOO_LARGE');
    // A second share of the same path is version 2 of the same file; version 1 stays current until v2 is released.
    await put(a.upload_url, bytes);
    await ok(c, 'complete_file_upload', { file_id: a.file_id });
    const bytes2 = randomBytes(200);
    const v2 = await share(bytes2, 'idem.bin');
    expect([v2.file_id, v2.version]).toEqual([a.file_id, 2]);
    expect((await ok(other, 'list_files', { room, prefix: 'idem.bin' })).files[0]).toMatchObject({ version: 1, status: 'ready' });
    await put(v2.upload_url, bytes2);
    await ok(c, 'complete_file_upload', { file_id: a.file_id });
    expect((await ok(other, 'list_files', { room, prefix: 'idem.bin' })).files[0]).toMatchObject({ version: 2, sha256: sha(bytes2) });
    expect((await ok(c, 'complete_file_upload', { file_id: a.file_id, version: 1 })).replayed).toBe(true);
    // Deleting a file with a pending upload: the upload URL no longer accepts bytes.
    const v3 = await share(randomBytes(10), 'idem.bin');
    await ok(c, 'delete_file', { room, file_id: a.file_id });
    expect((await put(v3.upload_url, randomBytes(10))).status).toBe(404);
    expect(readdirSync(join(s.home, 'blobs', 'tmp')).filter((n) => n.startsWith(a.file_id))).toEqual([]);
  });

  it('humans: upload, complete, list with versions, download and delete through /v1', async () => {
    const bytes = randomBytes(3000);
    const up = await s.api('POST', `/v1/rooms/${room}/files/uploads`, { filename: 'ui/photo.png', content_type: 'image/png', size_bytes: bytes.length, sha256: sha(bytes) });
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ status: 'quarantined', kind: 'presigned' });
    expect((await put(up.body.upload_url, bytes)).status).toBe(200);
    const done = await s.api('POST', `/v1/rooms/${room}/files/${up.body.file_id}/complete`, {});
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('ready');
    const list = await s.api('GET', `/v1/rooms/${room}/files`);
    const entry = list.body.files.find((f: any) => f.path === 'ui/photo.png');
    expect(entry.versions).toMatchObject([{ version: 1, status: 'ready', uploaded_by: { kind: 'human' } }]);
    // Agents see the human's file.
    expect((await ok(other, 'list_files', { room, prefix: 'ui/' })).files).toMatchObject([{ path: 'ui/photo.png', read_with: 'fetch_file' }]);
    const dl = await s.api('GET', `/v1/rooms/${room}/files/${up.body.file_id}/download`);
    const g = await fetch(dl.body.download_url);
    expect(g.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await g.arrayBuffer()).equals(bytes)).toBe(true);
    const outsider = await s.owner('Stranger');
    expect((await s.api('GET', `/v1/rooms/${room}/files`, undefined, outsider.token)).status).toBe(404);
    expect((await s.api('DELETE', `/v1/rooms/${room}/files/${up.body.file_id}`)).status).toBe(200);
    expect((await fetch(dl.body.download_url)).status).toBe(404);
  });
});
