// Item 14: a path with bidirectional controls or zero-width characters can show as another
// path in the UI and in manifests ("report\u202Efdp.exe" reads as "reportexe.pdf"). The attack
// writes such paths through every door (MCP tools and the human API): each is INVALID_ARGUMENT.
import { describe, it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import { ok, fails } from '../helpers/server.js';
import { appFor, seatFor } from '../helpers/seat.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

const SPOOFS: Array<[string, string]> = [
  ['invoice\u202Efdp.exe', 'right-to-left override'],
  ['docs/\u202Dplan.md', 'left-to-right override'],
  ['a\u2066b\u2069.txt', 'isolates'],
  ['\u200Fnotes.md', 'right-to-left mark'],
  ['read\u200Bme.md', 'zero-width space'],
  ['src/ma\u200Din.ts', 'zero-width joiner'],
  ['src/ma\u200Cin.ts', 'zero-width non-joiner'],
  ['\uFEFFconfig.json', 'byte order mark'],
  ['pass\u2060wd.txt', 'word joiner'],
  ['x/\u061Cy.txt', 'Arabic letter mark'],
  ['soft\u00ADhyphen.txt', 'soft hyphen'],
];

describe('item 14: paths with bidi or zero-width characters', () => {
  const s = appFor({ rateLimit: { perSecond: 0, burst: 0 } });
  const seat = seatFor(s, 'Spoofer', 'Spoof');

  it.each(SPOOFS)('refuses %j (%s) on write_file, share_file and the human upload route', async (path) => {
    const e = await fails(seat.c, 'write_file', { room: seat.room, path, content: 'x' });
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.message).not.toContain(path);
    const e2 = await fails(seat.c, 'share_file', { room: seat.room, filename: path, content_type: 'text/plain', size_bytes: 1, sha256: sha('x') });
    expect(e2.code).toBe('INVALID_ARGUMENT');
    const h = await s.api('POST', `/v1/rooms/${seat.room}/files/uploads`, { filename: path, size_bytes: 1, sha256: sha('x') });
    expect(h.status).toBe(400);
    expect(h.body.error.code).toBe('INVALID_ARGUMENT');
    const l = await fails(seat.c, 'list_files', { room: seat.room, prefix: path });
    expect(l.code).toBe('INVALID_ARGUMENT');
  });

  it('nothing was stored, and honest Unicode names still work', async () => {
    expect((await ok(seat.c, 'list_files', { room: seat.room })).files).toEqual([]);
    const w = await ok(seat.c, 'write_file', { room: seat.room, path: 'docs/Überblick — plan ✓.md', content: 'ok' });
    expect(w.path).toBe('docs/Überblick — plan ✓.md');
    const w2 = await ok(seat.c, 'write_file', { room: seat.room, path: 'ملاحظات/خطة.md', content: 'ok' });
    expect(w2.path).toBe('ملاحظات/خطة.md');
  });
});
