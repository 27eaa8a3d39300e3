import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { UI_DIR } from '../helpers/browser.js';

const skip = existsSync(join(UI_DIR, 'index.html')) ? undefined : `UI bundle not built at ${UI_DIR} (npm run build): skipping the serving tests`;
if (skip) console.warn(skip);

/** A raw GET (fetch would decompress for us and hide what the server sent). */
function raw(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

describe.skipIf(!!skip)('serving the UI: compressed, cached, no source maps, a favicon', () => {
  let s: TestServer;
  let js: string;
  beforeAll(async () => {
    s = await startTestServer();
    js = readdirSync(join(UI_DIR, 'assets')).find((f) => f.endsWith('.js'))!;
  });
  afterAll(async () => s?.stop());

  it('sends precompressed brotli or gzip when accepted, the plain file otherwise; hashed assets are cached for a year', async () => {
    const plain = readFileSync(join(UI_DIR, 'assets', js));
    const br = await raw(`${s.baseUrl}/assets/${js}`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toContain('Accept-Encoding');
    expect(br.body.length).toBeLessThan(plain.length / 2);
    expect(brotliDecompressSync(br.body).equals(plain)).toBe(true);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const gz = await raw(`${s.baseUrl}/assets/${js}`, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(plain)).toBe(true);
    const none = await raw(`${s.baseUrl}/assets/${js}`, { 'accept-encoding': 'br;q=0, identity' });
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(none.body.equals(plain)).toBe(true);
    const page = await raw(`${s.baseUrl}/`, { 'accept-encoding': 'br' });
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    // A client-side route is the page; a missing file is a 404, not the page.
    expect((await raw(`${s.baseUrl}/rooms/anything`)).headers['content-type']).toContain('text/html');
    expect((await raw(`${s.baseUrl}/assets/missing-0000.js`)).status).toBe(404);
  });

  it('has no source maps in the build, and serves none; /favicon.ico is an icon', async () => {
    const all = readdirSync(UI_DIR, { recursive: true }) as string[];
    expect(all.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(readFileSync(join(UI_DIR, 'assets', js), 'utf8')).not.toContain('sourceMappingURL');
    expect((await raw(`${s.baseUrl}/assets/${js}.map`)).status).toBe(404);
    expect((await raw(`${s.baseUrl}/assets/${js}.br`)).status).toBe(404);
    const ico = await raw(`${s.baseUrl}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers['content-type']).toBe('image/x-icon');
    expect(ico.body.readUInt16LE(2)).toBe(1); // ICO type: icon
    const svg = await raw(`${s.baseUrl}/favicon.svg`);
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    expect(svg.body.toString()).toContain('<svg');
  });
});
