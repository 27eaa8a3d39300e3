import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { newErrorId } from '../evidence/store.js';

/**
 * While the start-up integrity check of a large database runs (db/integrity.ts), requests
 * that may write wait for it: everything but GET and HEAD (the UI login link, a GET that
 * writes a session, waits too). When the check fails they get 503 and the server closes.
 */
export function holdWritesUntil(server: Server, until: Promise<void>): void {
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  let passed = false;
  until.then(
    () => (passed = true),
    () => {},
  );
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    for (const l of listeners) l.call(server, req, res);
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (passed || ((req.method === 'GET' || req.method === 'HEAD') && path !== '/login')) return handle(req, res);
    until.then(
      () => handle(req, res),
      () => {
        if (res.headersSent) return;
        res.writeHead(503, { 'content-type': 'application/json', connection: 'close' });
        // Not recorded as evidence: the database is the thing that failed.
        res.end(JSON.stringify({ error: { code: 'UNAVAILABLE', message: 'the database failed its integrity check; the server is stopping', error_id: newErrorId() } }));
      },
    );
  });
}
