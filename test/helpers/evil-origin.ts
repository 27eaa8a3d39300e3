import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

/**
 * An attacker's web server on another loopback port: serves the pages a test gives it and
 * records every request it receives (path and headers), so a test can see what a browser
 * sent to it (e.g. cookies that are not port-scoped).
 */
export interface EvilOrigin {
  origin: string;
  requests: Array<{ path: string; headers: IncomingHttpHeaders }>;
  /** Serves this HTML at the path. */
  page(path: string, html: string): void;
  close(): Promise<void>;
}

export async function startEvilOrigin(): Promise<EvilOrigin> {
  const pages = new Map<string, string>();
  const requests: EvilOrigin['requests'] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ path: req.url ?? '/', headers: req.headers });
    const html = pages.get((req.url ?? '/').split('?')[0]!);
    if (html === undefined) {
      res.writeHead(204);
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    page: (path, html) => void pages.set(path, html),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
