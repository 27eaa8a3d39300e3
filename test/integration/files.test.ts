import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { ok, fails } from '../helpers/server.js';
import { purgeTrash } from '../../src-main/core/files/service.js';
import { appFor, seatFor } from '../helpers/seat.js';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** Every file under a folder, relative to it. */
function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p).map((x) => join(e.name, x)));
    else out.push(e.name);
  }
  return out;
}

function blobFiles(home: string): string[] {
  return walk(join(home, 'blobs')).filter((p) => !p.startsWith('tmp'));
}

describe('files: inline tools', () => {
  // The home sits alone inside `outer`, so anything written outside it would show up there;
  // removed after the app stopped (after hooks run in reverse order).
  let outer = '';
  afterAll(() => rmSync(outer, { recursive: true, force: true }));
  const s = appFor(() => {
    outer = mkdtempSync(join(tmpdir(), 'agent-rooms-files-'));
    return { home: join(outer, 'home'), rateLimit: { perSecond: 0, burst: 0 } };
  });
  const seat = seatFor(s, 'Writer', 'Files');

  it('writes and reads text and binary files, with content types', async () => {
    const w = await ok(seat.c, 'write_file', { room: seat.room, path: 'notes/plan.md', content: '# Plan\nship it ✓\n' });
    expect(w).toMatchObject({
      path: 'notes/plan.md',
      version: 1,
      filename: 'plan.md',
      content_type: 'text/plain; charset=utf-8',
      size_bytes: Buffer.byteLength('# Plan\nship it ✓\n'),
      sha256: sha('# Plan\nship it ✓\n'),
      kind: 'inline',
      status: 'ready',
      read_with: 'read_file',
    });
    expect(w.file_id).toMatch(/^file_/);
    const r = await ok(seat.c, 'read_file', { room: seat.room, path: 'notes/plan.md' });
    expect(r).toMatchObject({ encoding: 'utf-8', content: '# Plan\nship it ✓\n', version: 1, file_id: w.file_id, partial: false });

    const bin = randomBytes(1000);
    bin[0] = 0xff; // never valid UTF-8
    const b = await ok(seat.c, 'write_file', { room: seat.room, path: 'bin/blob.dat', content: bin.toString('base64'), encoding: 'base64', content_type: 'application/x-thing' });
    expect(b).toMatchObject({ size_bytes: 1000, sha256: sha(bin), content_type: 'application/x-thing' });
    const rb = await ok(seat.c, 'read_file', { room: seat.room, file_id: b.file_id });
    expect(rb.encoding).toBe('base64');
    expect(Buffer.from(rb.content, 'base64').equals(bin)).toBe(true);
  });

  it('a rewrite of a path is a new version; old versions stay readable', async () => {
    const v1 = await ok(seat.c, 'write_file', { room: seat.room, path: 'doc.txt', content: 'one' });
    const v2 = await ok(seat.c, 'write_file', { room: seat.room, path: './doc.txt', content: 'two' });
    const v3 = await ok(seat.c, 'write_file', { room: seat.room, path: 'doc.txt', content: 'three' });
    expect([v1.version, v2.version, v3.version]).toEqual([1, 2, 3]);
    expect(new Set([v1.file_id, v2.file_id, v3.file_id]).size).toBe(1);
    expect((await ok(seat.c, 'read_file', { room: seat.room, path: 'doc.txt' })).content).toBe('three');
    expect((await ok(seat.c, 'read_file', { room: seat.room, path: 'doc.txt', version: 1 })).content).toBe('one');
    expect((await ok(seat.c, 'read_file', { room: seat.room, file_id: v1.file_id, version: 2 })).content).toBe('two');
    const e = await fails(seat.c, 'read_file', { room: seat.room, path: 'doc.txt', version: 9 });
    expect(e.code).toBe('NOT_FOUND');
  });

  it('reads byte ranges', async () => {
    const text = 'abcdefghijklmnopqrstuvwxyz';
    await ok(seat.c, 'write_file', { room: seat.room, path: 'alpha.txt', content: text });
    const r1 = await ok(seat.c, 'read_file', { room: seat.room, path: 'alpha.txt', range: { start: 2, end: 5 } });
    expect(r1).toMatchObject({ content: 'cdef', range: { start: 2, end: 5 }, partial: true, size_bytes: 26 });
    const r2 = await ok(seat.c, 'read_file', { room: seat.room, path: 'alpha.txt', range: 'bytes=20-' });
    expect(r2.content).toBe('uvwxyz');
    const r3 = await ok(seat.c, 'read_file', { room: seat.room, path: 'alpha.txt', range: { start: 24, end: 1000 } });
    expect(r3).toMatchObject({ content: 'yz', range: { start: 24, end: 25 } });
    expect((await fails(seat.c, 'read_file', { room: seat.room, path: 'alpha.txt', range: { start: 26 } })).reason).toBe('range_not_satisfiable');
    expect((await fails(seat.c, 'read_file', { room: seat.room, path: 'alpha.txt', range: { start: 5, end: 2 } })).code).toBe('INVALID_ARGUMENT');
    // A range that cuts a multi-byte character comes back as base64, byte-exact.
    await ok(seat.c, 'write_file', { room: seat.room, path: 'utf.txt', content: 'aé' });
    const cut = await ok(seat.c, 'read_file', { room: seat.room, path: 'utf.txt', range: { start: 0, end: 1 } });
    expect(cut.encoding).toBe('base64');
    expect(Buffer.from(cut.content, 'base64').equals(Buffer.from('aé').subarray(0, 2))).toBe(true);
  });

  it('lists files by prefix with kind and read_with', async () => {
    const r2 = await s.room('Listing');
    const a = await s.agent('Lister');
    await s.join(r2, a.plate);
    const c2 = await s.connect(a.credential);
    for (const p of ['src/a.ts', 'src/b.ts', 'src/sub/c.ts', 'docs/readme.md', 'srcx.txt']) await ok(c2, 'write_file', { room: r2, path: p, content: p });
    await ok(c2, 'write_file', { room: r2, path: 'src/a.ts', content: 'a2' });
    const all = (await ok(c2, 'list_files', { room: r2 })).files;
    expect(all.map((f: any) => f.path)).toEqual(['docs/readme.md', 'src/a.ts', 'src/b.ts', 'src/sub/c.ts', 'srcx.txt']);
    const a1 = all.find((f: any) => f.path === 'src/a.ts');
    expect(a1).toMatchObject({ version: 2, kind: 'inline', status: 'ready', read_with: 'read_file', size_bytes: 2, sha256: sha('a2'), filename: 'a.ts' });
    expect(Object.keys(a1).sort()).toEqual(
      ['content_type', 'file_id', 'filename', 'kind', 'path', 'read_with', 'sha256', 'size_bytes', 'status', 'updated_at', 'version'].sort(),
    );
    const src = (await ok(c2, 'list_files', { room: r2, prefix: 'src/' })).files.map((f: any) => f.path);
    expect(src).toEqual(['src/a.ts', 'src/b.ts', 'src/sub/c.ts']);
    expect((await ok(c2, 'list_files', { room: r2, prefix: 'src' })).files).toHaveLength(4);
    expect((await ok(c2, 'list_files', { room: r2, prefix: '%' })).files).toHaveLength(0);
    // Another room's files never show.
    expect((await ok(seat.c, 'list_files', { room: seat.room })).files.some((f: any) => f.path.startsWith('src/'))).toBe(false);
  });

  // Deletes are soft since issue 14 (docs/security.md, item 7): the bytes stay until the retention ends and the purge runs.
  it('delete_file removes the file with all its versions and drops bytes no longer used once purged', async () => {
    const unique = `only here ${randomBytes(8).toString('hex')}`;
    const shared = `shared ${randomBytes(8).toString('hex')}`;
    await ok(seat.c, 'write_file', { room: seat.room, path: 'del/x.txt', content: unique });
    await ok(seat.c, 'write_file', { room: seat.room, path: 'del/x.txt', content: shared });
    await ok(seat.c, 'write_file', { room: seat.room, path: 'del/y.txt', content: shared });
    const blobs = blobFiles(s.home);
    expect(blobs.filter((b) => b.endsWith(sha(shared)))).toHaveLength(1); // identical versions share one blob
    expect(blobs.some((b) => b.endsWith(sha(unique)))).toBe(true);
    const d = await ok(seat.c, 'delete_file', { room: seat.room, path: 'del/x.txt' });
    expect(d).toMatchObject({ deleted: true, path: 'del/x.txt', versions_deleted: 2 });
    expect(Date.parse(d.restorable_until)).toBeGreaterThan(Date.now());
    expect((await fails(seat.c, 'read_file', { room: seat.room, path: 'del/x.txt' })).code).toBe('NOT_FOUND');
    expect((await fails(seat.c, 'read_file', { room: seat.room, file_id: d.file_id, version: 1 })).code).toBe('NOT_FOUND');
    expect((await ok(seat.c, 'list_files', { room: seat.room, prefix: 'del/' })).files.map((f: any) => f.path)).toEqual(['del/y.txt']);
    // Restorable: the bytes stay until the purge after the retention period.
    expect(blobFiles(s.home).some((b) => b.endsWith(sha(unique)))).toBe(true);
    purgeTrash(s.running.core, Date.parse(d.restorable_until) + 1);
    const after = blobFiles(s.home);
    expect(after.some((b) => b.endsWith(sha(unique)))).toBe(false);
    expect(after.some((b) => b.endsWith(sha(shared)))).toBe(true); // still used by del/y.txt
    expect((await ok(seat.c, 'read_file', { room: seat.room, path: 'del/y.txt' })).content).toBe(shared);
    const d2 = await ok(seat.c, 'delete_file', { room: seat.room, file_id: (await ok(seat.c, 'list_files', { room: seat.room, prefix: 'del/' })).files[0].file_id });
    purgeTrash(s.running.core, Date.parse(d2.restorable_until) + 1);
    expect(blobFiles(s.home).some((b) => b.endsWith(sha(shared)))).toBe(false);
    expect((await fails(seat.c, 'delete_file', { room: seat.room, path: 'del/y.txt' })).code).toBe('NOT_FOUND');
    // A path rewritten after delete starts over at version 1.
    expect((await ok(seat.c, 'write_file', { room: seat.room, path: 'del/x.txt', content: 'again' })).version).toBe(1);
  });

  it('file changes bump the room context_version; reads do not; fetch_file serves inline files too', async () => {
    const version = async () => (await s.api('GET', `/v1/rooms/${seat.room}`)).body.context_version as number;
    const v0 = await version();
    const w = await ok(seat.c, 'write_file', { room: seat.room, path: 'ctx/a.txt', content: 'a' });
    const v1 = await version();
    expect(v1).toBeGreaterThan(v0);
    await ok(seat.c, 'read_file', { room: seat.room, path: 'ctx/a.txt' });
    await ok(seat.c, 'list_files', { room: seat.room });
    expect(await version()).toBe(v1);
    const f = await ok(seat.c, 'fetch_file', { file_id: w.file_id });
    // The download itself is served by the listener: test/integration/http-adapter.test.ts.
    expect(f.download_url).toMatch(new RegExp(`^${s.baseUrl}/`));
    await ok(seat.c, 'delete_file', { room: seat.room, path: 'ctx/a.txt' });
    expect(await version()).toBeGreaterThan(v1);
  });

  it('over 256 KiB decoded fails PAYLOAD_TOO_LARGE and names share_file', async () => {
    const limit = 256 * 1024;
    expect((await ok(seat.c, 'write_file', { room: seat.room, path: 'big/at-limit.bin', content: Buffer.alloc(limit, 7).toString('base64'), encoding: 'base64' })).size_bytes).toBe(limit);
    const e = await fails(seat.c, 'write_file', { room: seat.room, path: 'big/over.bin', content: Buffer.alloc(limit + 1, 7).toString('base64'), encoding: 'base64' });
    expect(e.code).toBe('PAYLOAD_TOO_LARGE');
    expect(e.message).toContain('share_file');
    const e2 = await fails(seat.c, 'write_file', { room: seat.room, path: 'big/over.txt', content: 'é'.repeat(limit / 2 + 1) });
    expect(e2.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await fails(seat.c, 'read_file', { room: seat.room, path: 'big/over.bin' })).code).toBe('NOT_FOUND');
    expect((await fails(seat.c, 'write_file', { room: seat.room, path: 'big/bad.bin', content: 'not base64!', encoding: 'base64' })).reason).toBe('bad_base64');
  });

  it('idempotency: a key applies to one (room, path) and does not alias across paths', async () => {
    const first = await ok(seat.c, 'write_file', { room: seat.room, path: 'idem/a.txt', content: 'A', idempotency_key: 'k1' });
    const again = await ok(seat.c, 'write_file', { room: seat.room, path: 'idem/a.txt', content: 'A', idempotency_key: 'k1' });
    expect(again.replayed).toBe(true);
    expect(again.version).toBe(first.version);
    expect(again.file_id).toBe(first.file_id);
    const other = await ok(seat.c, 'write_file', { room: seat.room, path: 'idem/b.txt', content: 'B', idempotency_key: 'k1' });
    expect(other.replayed).toBeUndefined();
    expect(other.file_id).not.toBe(first.file_id);
    expect(other.path).toBe('idem/b.txt');
    expect((await ok(seat.c, 'read_file', { room: seat.room, path: 'idem/b.txt' })).content).toBe('B');
    expect((await ok(seat.c, 'read_file', { room: seat.room, path: 'idem/a.txt' })).content).toBe('A');
    const files = (await ok(seat.c, 'list_files', { room: seat.room, prefix: 'idem/' })).files;
    expect(files.map((f: any) => [f.path, f.version])).toEqual([
      ['idem/a.txt', 1],
      ['idem/b.txt', 1],
    ]);
    const reused = await fails(seat.c, 'write_file', { room: seat.room, path: 'idem/a.txt', content: 'changed', idempotency_key: 'k1' });
    expect(reused).toMatchObject({ code: 'CONFLICT', reason: 'idempotency_key_reused' });
  });

  it('checks scopes and membership', async () => {
    // A file of its own, so the test does not lean on what others wrote (they may run after it).
    await ok(seat.c, 'write_file', { room: seat.room, path: 'scope/doc.txt', content: 'doc' });
    const reader = await s.agent('ReadOnly', { scopes: ['READ'] });
    const outsider = await s.agent('Outsider');
    await s.join(seat.room, reader.plate);
    const cr = await s.connect(reader.credential);
    const co = await s.connect(outsider.credential);
    expect((await ok(cr, 'list_files', { room: seat.room })).files.length).toBeGreaterThan(0);
    for (const [tool, args] of [
      ['write_file', { room: seat.room, path: 'scope/x.txt', content: 'x' }],
      ['delete_file', { room: seat.room, path: 'scope/doc.txt' }],
      ['share_file', { room: seat.room, filename: 'x.bin', content_type: 'application/octet-stream', size_bytes: 1, sha256: sha('x') }],
      ['complete_file_upload', { file_id: 'file_x' }],
      ['read_file', { room: seat.room, path: 'scope/doc.txt' }],
      ['fetch_file', { file_id: 'file_x' }],
    ] as const) {
      expect((await fails(cr, tool, args)).code, tool).toBe('SCOPE_MISSING');
    }
    expect((await ok(seat.c, 'list_files', { room: seat.room, prefix: 'scope/x.txt' })).files).toHaveLength(0); // nothing was written
    expect((await fails(co, 'list_files', { room: seat.room })).code).toBe('NOT_MEMBER');
    expect((await fails(co, 'read_file', { room: seat.room, path: 'scope/doc.txt' })).code).toBe('NOT_MEMBER');
    const docId = (await ok(seat.c, 'list_files', { room: seat.room, prefix: 'scope/doc.txt' })).files[0].file_id;
    expect((await fails(co, 'fetch_file', { file_id: docId })).code).toBe('NOT_MEMBER');
    // A file id of another room does not open it through this room.
    const other = await s.room('Elsewhere');
    await s.join(other, outsider.plate);
    expect((await fails(co, 'read_file', { room: other, file_id: docId })).code).toBe('NOT_FOUND');
  });

  const ATTACKS: Array<[string, string]> = [
    ['../escape.txt', 'dot-dot'],
    ['a/../../escape.txt', 'dot-dot inside'],
    ['..', 'bare dot-dot'],
    ['/etc/passwd', 'absolute'],
    ['//server/share/x', 'UNC-like'],
    ['a\\..\\..\\escape.txt', 'backslashes'],
    ['..\\escape.txt', 'backslash dot-dot'],
    ['C:/Windows/win.ini', 'drive letter'],
    ['c:escape.txt', 'drive-relative'],
    ['a\u0000b.txt', 'NUL'],
    ['a/b\u0001.txt', 'control character'],
    ['CON', 'device'],
    ['nul.txt', 'device with extension'],
    ['dir/aux', 'device in a folder'],
    ['COM1.log', 'COM port'],
    ['lpt9', 'LPT port'],
    ['x/' + 'a'.repeat(256), 'over-long segment'],
    [Array.from({ length: 40 }, () => 'abcdefghijklmnopqrstuvwxyz').join('/'), 'over-long path'],
    ['file.txt:stream', 'alternate data stream'],
    ['trailing./x', 'trailing dot'],
    ['', 'empty'],
    ['./', 'only dot'],
  ];

  it('refuses every path escape, without echoing the path, and writes nothing outside the home', async () => {
    for (const [path, what] of ATTACKS) {
      const e = await fails(seat.c, 'write_file', { room: seat.room, path, content: 'pwned' });
      expect(e.code, what).toBe('INVALID_ARGUMENT');
      if (path.length > 3) expect(e.message, what).not.toContain(path);
      const e2 = await fails(seat.c, 'share_file', { room: seat.room, filename: path, content_type: 'text/plain', size_bytes: 5, sha256: sha('pwned') });
      expect(e2.code, what).toBe('INVALID_ARGUMENT');
      const e3 = await fails(seat.c, 'read_file', { room: seat.room, path });
      expect(['INVALID_ARGUMENT', 'NOT_FOUND'], what).toContain(e3.code);
    }
    expect(readdirSync(outer)).toEqual(['home']);
    const everything = walk(s.home);
    for (const f of everything) {
      expect(/^(rooms\.db(-wal|-shm)?|owner-token|server\.json|server\.lock|keys\/[\w.-]+|blobs\/[0-9a-f]{2}\/[0-9a-f]{64}|blobs\/tmp\/[\w.-]+)$/.test(f), f).toBe(true);
    }
    expect(everything.every((f) => !relative(s.home, join(s.home, f)).startsWith('..'))).toBe(true);
    const pwned = sha('pwned');
    expect(everything.some((f) => f.endsWith(pwned))).toBe(false);
    expect(statSync(join(s.home, 'blobs')).isDirectory()).toBe(true);
  });
});
