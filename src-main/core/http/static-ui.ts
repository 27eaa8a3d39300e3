import type { IncomingMessage, ServerResponse } from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
};

/** Precompressed siblings written at build (scripts/compress-ui.mjs), best first. */
const ENCODINGS: Array<[token: string, suffix: string]> = [
  ['br', '.br'],
  ['gzip', '.gz'],
];

function accepts(req: IncomingMessage, token: string): boolean {
  const h = String(req.headers['accept-encoding'] ?? '');
  return h.split(',').some((part) => {
    const [name, ...params] = part.trim().split(';');
    if (name?.trim().toLowerCase() !== token) return false;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    return !q || Number(q[1]) > 0;
  });
}

export type StaticOutcome = { kind: 'file' } | { kind: 'not-built' } | { kind: 'bad-encoding' } | { kind: 'bad-path' } | { kind: 'not-found' };

/**
 * Serves the built UI. Hashed assets (`/assets/…`) are cached for a year (their name changes
 * with their content); the page itself is never cached, so a new build is picked up at once.
 * Source maps are never served (a production build has none; a stray one stays private).
 * Files with a precompressed `.br`/`.gz` sibling are sent compressed when the client accepts it.
 * An unknown path with a file extension is a 404 (a missing asset, `/favicon.ico` without one),
 * anything else is a client-side route and gets the page.
 */
export function serveUiFile(req: IncomingMessage, res: ServerResponse, url: URL, dir: string | undefined, csp: string): StaticOutcome {
  if (!dir || !existsSync(join(dir, 'index.html'))) return { kind: 'not-built' };
  let rel: string;
  try {
    rel = decodeURIComponent(url.pathname);
  } catch {
    // A malformed percent-encoding (URIError): the caller answers 400, never a 500 with a stack.
    return { kind: 'bad-encoding' };
  }
  if (rel.includes('\0')) return { kind: 'bad-path' };
  if (rel.endsWith('.map') || rel.endsWith('.br') || rel.endsWith('.gz')) return { kind: 'not-found' };
  let file = normalize(join(dir, rel));
  if (!file.startsWith(dir + sep) && file !== dir) return { kind: 'not-found' };
  if (!existsSync(file) || statSync(file).isDirectory()) {
    if (extname(rel) && rel !== '/index.html') return { kind: 'not-found' };
    rel = '/index.html';
    file = join(dir, 'index.html');
  }
  const type = MIME[extname(file)] ?? 'application/octet-stream';
  const headers: Record<string, string> = { 'content-type': type, 'x-content-type-options': 'nosniff', vary: 'Accept-Encoding' };
  if (type.startsWith('text/html')) {
    headers['content-security-policy'] = csp;
    headers['cache-control'] = 'no-store';
    // The login page's URL holds a one-time token: never send it on as a referrer.
    headers['referrer-policy'] = 'no-referrer';
    // Expire the session cookie of earlier versions, which every port on 127.0.0.1 received.
    if (/(?:^|;\s*)ar_session=/.test(req.headers.cookie ?? '')) headers['set-cookie'] = 'ar_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0';
  } else if (rel.startsWith('/assets/')) {
    headers['cache-control'] = 'public, max-age=31536000, immutable';
  } else {
    headers['cache-control'] = 'public, max-age=86400';
  }
  let body = readFileSync(file);
  for (const [token, suffix] of ENCODINGS) {
    if (accepts(req, token) && existsSync(file + suffix)) {
      body = readFileSync(file + suffix);
      headers['content-encoding'] = token;
      break;
    }
  }
  headers['content-length'] = String(body.length);
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
  return { kind: 'file' };
}
