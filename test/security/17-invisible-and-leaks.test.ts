// Issue 26 F5, F8 and the masking INFO item, each the way the red team tried it.
// F5: reserve_paths accepted every invisible and bidi character tried (16 of 16), and file paths
// accepted tag characters, variation selectors, U+2028/2029 and NBSP. F8: the owners.changed
// event told every signed-in owner the others' allow_runners. INFO: output-tail masking knew only
// some of the secret prefixes the server issues. In process; F8 is about what the event stream
// carries, so it runs over HTTP: test/integration/http-adapter.test.ts.
import { describe, it, expect } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fails } from '../helpers/server.js';
import { appFor, seatFor } from '../helpers/seat.js';
import { maskIssuedSecrets } from '../../src-main/core/wakes/runners.js';
import { ISSUED_SECRET_PREFIXES, newSecret } from '../../src-main/core/util/ids.js';

const INVISIBLE: Array<[string, string]> = [
  ['\u{E0041}', 'tag letter A'],
  ['\u{E007F}', 'cancel tag'],
  ['\uFE0F', 'variation selector 16'],
  ['\uFE00', 'variation selector 1'],
  ['\u{E0100}', 'variation selector 17'],
  ['\u2028', 'line separator'],
  ['\u2029', 'paragraph separator'],
  ['\u00A0', 'no-break space'],
  ['\u200B', 'zero-width space'],
  ['\u200C', 'zero-width non-joiner'],
  ['\u200D', 'zero-width joiner'],
  ['\u2060', 'word joiner'],
  ['\uFEFF', 'byte order mark'],
  ['\u202E', 'right-to-left override'],
  ['\u2066', 'left-to-right isolate'],
  ['\u200F', 'right-to-left mark'],
];
const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

describe('issue 26: invisible characters, owners.changed, issued-secret masking', () => {
  const s = appFor({ rateLimit: { perSecond: 0, burst: 0 } });
  const seat = seatFor(s, 'Spoofer', 'Invisible');

  it.each(INVISIBLE)('F5: %j (%s) is refused in reservation patterns, list paths and file paths, naming the code point', async (ch) => {
    const cp = codePoint(ch);
    const reserve = await fails(seat.c, 'reserve_paths', { room: seat.room, paths: [`src/ma${ch}in.ts`] });
    expect(reserve.code).toBe('INVALID_ARGUMENT');
    expect(reserve.message).toContain(cp);
    const list = await fails(seat.c, 'list_reservations', { room: seat.room, path: `src/${ch}x.ts` });
    expect(list.code).toBe('INVALID_ARGUMENT');
    const file = await fails(seat.c, 'write_file', { room: seat.room, path: `notes/re${ch}adme.md`, content: 'x' });
    expect(file.code).toBe('INVALID_ARGUMENT');
    expect(file.message).toContain(cp);
  });

  it('F5: ordinary names still work (accents, non-Latin, symbols, plain spaces)', async () => {
    const r = await seat.c.callTool({ name: 'reserve_paths', arguments: { room: seat.room, paths: ['docs/café notes/日本語.md', 'src/+$~.ts'] } });
    expect(r.isError).toBeFalsy();
  });

  it('INFO: output masking covers every prefix of an issued secret, and newSecret issues no other', () => {
    for (const prefix of ISSUED_SECRET_PREFIXES) {
      const secret = newSecret(prefix);
      const masked = maskIssuedSecrets(`leaked ${secret} in a runner's output`);
      expect(masked, prefix).not.toContain(secret);
      expect(masked).toContain(`${prefix}***`);
    }
    // Every newSecret('…') call of the server uses a listed prefix (the type says so; the source agrees).
    const files: string[] = [];
    const walk = (d: string) => {
      for (const n of readdirSync(d)) {
        const f = join(d, n);
        if (statSync(f).isDirectory()) walk(f);
        else if (f.endsWith('.ts')) files.push(f);
      }
    };
    walk(join(__dirname, '../../src-main'));
    const used = files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/newSecret\('([a-z]+_)'\)/g)].map((m) => m[1]!));
    expect(used.length).toBeGreaterThan(3);
    for (const p of used) expect(ISSUED_SECRET_PREFIXES as readonly string[]).toContain(p);
  });
});
