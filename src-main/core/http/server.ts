import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Core } from '../core.js';
import type { Router } from './router.js';
import { API_BODY_LIMIT, dispatchApi } from './api.js';
import { hostAllowed, originAllowed } from './guard.js';
import { sendAnswer, sendApiError, sendJson } from './respond.js';
import { AppError, toAppError } from '../errors/app-error.js';
import { bodyTimeouts, readBody } from './body.js';
import { isMcpHost, type McpResourceHost } from '../../../shared/hosts.js';
import type { Owner } from '../auth/callers.js';
import { errorDocsHtml } from '../errors/docs.js';
import { serveUiFile } from './static-ui.js';

export { API_BODY_LIMIT };

/**
 * Slow-client defences: the whole request head must arrive within headersMs, and a request
 * body within bodyMs (http/body.ts). Streams (SSE, MCP GET) are not limited once their request is in.
 * Mutable so tests can shorten them before starting a server.
 */
export const httpTimeouts = {
  headersMs: 20_000,
  /** How long an idle keep-alive connection is kept (the `Keep-Alive: timeout=` a client is told). */
  keepAliveMs: 5_000,
  get bodyMs(): number {
    return bodyTimeouts.ms;
  },
  set bodyMs(v: number) {
    bodyTimeouts.ms = v;
  },
};


export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

function htmlPage(res: ServerResponse, status: number, title: string, text: string) {
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP, 'cache-control': 'no-store' });
  res.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body style="font-family:system-ui;max-width:40rem;margin:4rem auto;padding:0 1rem"><h1>${esc(title)}</h1><p>${esc(text)}</p></body></html>`,
  );
}

/** What the server is given (http imports no capability): the routes, the MCP endpoint, how owners sign in. */
export interface HttpDeps {
  core: Core;
  router: Router;
  /** The human API's caller, from the request's credential; UNAUTHENTICATED otherwise (owners/authenticate.ts). */
  authenticateOwner: (core: Core, req: IncomingMessage, url: URL, port: number) => Owner;
  /** `/mcp` and `/mcp/<host>` (mcp/handler.ts). */
  mcp: (req: IncomingMessage, res: ServerResponse, host: McpResourceHost, url: URL) => Promise<void>;
  uiDir?: string;
  /** Routes outside /v1 that a capability serves itself (e.g. presigned file URLs). */
  rawHandlers: Array<(req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean> | boolean>;
}

export function createHttpServer(deps: HttpDeps, port: () => number): Server {
  const { core, router } = deps;

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL) {
    const answer = await dispatchApi(
      { core, router, authenticateOwner: deps.authenticateOwner, port },
      { method: req.method ?? 'GET', url, headers: req.headers, readBody: () => readBody(req, API_BODY_LIMIT), req, res },
    );
    if (answer) sendAnswer(res, answer);
  }

  function serveStatic(req: IncomingMessage, res: ServerResponse, url: URL) {
    const out = serveUiFile(req, res, url, deps.uiDir, CSP);
    if (out.kind === 'not-built') return htmlPage(res, 200, 'Agent Rooms', 'The server is running. The UI bundle is not built: run "npm run build".');
    // A malformed percent-encoding is the client's mistake: a 400, never a 500 with a stack.
    if (out.kind === 'bad-encoding') return htmlPage(res, 400, 'Bad request', 'The address is not valid: it has a malformed percent-encoding.');
    if (out.kind === 'bad-path') return htmlPage(res, 400, 'Bad request', 'Bad path.');
    if (out.kind === 'not-found') return htmlPage(res, 404, 'Not found', 'No such file.');
  }

  // Expired request heads are found by a periodic check: run it often enough for headersMs to hold.
  const server = createServer({ connectionsCheckingInterval: Math.max(250, Math.min(5_000, Math.floor(httpTimeouts.headersMs / 4))) }, async (req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://127.0.0.1');
    } catch {
      return sendApiError(core, res, new AppError('INVALID_ARGUMENT', 'bad request URL'));
    }
    try {
      if (!hostAllowed(req, port()) || !originAllowed(req)) {
        return sendApiError(core, res, new AppError('FORBIDDEN', 'Host or Origin not allowed (DNS-rebinding protection)', { reason: 'host_not_allowed' }));
      }
      const p = url.pathname;
      if (p === '/mcp' || p.startsWith('/mcp/')) {
        const host = p === '/mcp' ? 'generic' : p.slice(5).replace(/\/$/, '');
        if (host !== 'generic' && !isMcpHost(host)) return sendApiError(core, res, new AppError('NOT_FOUND', `no MCP resource ${p.slice(0, 60)}`));
        return await deps.mcp(req, res, host as McpResourceHost, url);
      }
      if (p.startsWith('/v1/')) return await handleApi(req, res, url);
      for (const h of deps.rawHandlers) if (await h(req, res, url)) return;
      // GET /login?token= is the UI's page (it asks before it signs in, then POSTs /v1/ui/login).
      if (p === '/healthz') return sendJson(res, 200, { ok: true });
      if (p === '/docs/errors') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP });
        return res.end(errorDocsHtml());
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendApiError(core, res, new AppError('NOT_FOUND', 'not found'));
      return serveStatic(req, res, url);
    } catch (err) {
      const e = toAppError(err);
      if (e.code === 'INTERNAL') core.config.log(`internal error: ${(err as Error)?.stack ?? err}`);
      if (!res.headersSent) sendApiError(core, res, e);
      else res.end();
    }
  });
  server.headersTimeout = httpTimeouts.headersMs;
  server.requestTimeout = 0; // long uploads and SSE streams; slow-body defence is per body (bodyTimeouts)
  server.keepAliveTimeout = httpTimeouts.keepAliveMs;
  return server;
}
