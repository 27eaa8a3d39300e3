import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Core } from '../core.js';
import type { Owner } from '../auth/callers.js';
import { AppError, toAppError } from '../errors/app-error.js';
import { prepareRoute, queryObject, Status, type RouteContext, type Router } from './router.js';
import { apiErrorAnswer, jsonAnswer, type ApiAnswer } from './respond.js';

/** What a /v1 request needs besides itself: the routes and how an owner signs in (http imports no capability). */
export interface ApiDeps {
  core: Core;
  router: Router;
  /** The human API's caller, from the request's credential; UNAUTHENTICATED otherwise (owners/authenticate.ts). */
  authenticateOwner: (core: Core, req: IncomingMessage, url: URL, port: number) => Owner;
  /** The port the server listens on (same-origin checks). */
  port: () => number;
}

/** One /v1 request, as the transport received it. */
export interface ApiRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  /** Reads the body (called once, after authentication, only for routes that take a JSON body). */
  readBody: () => Promise<Buffer>;
  /** What handlers that read headers or stream see: the request, and the response they may write themselves. */
  req: IncomingMessage;
  res: ServerResponse;
}

export const API_BODY_LIMIT = 1024 * 1024;

/**
 * Everything the human API does with a /v1 request, without the transport: route, owner,
 * JSON body, the router's checks, the handler, durability, then the answer (a JSON body, or an
 * error with its stored evidence). `undefined` when the handler wrote the response itself
 * (the event stream, a streamed export). The HTTP server (server.ts) sends the answer; tests of
 * rules call it in-process (docs/testing.md).
 */
export async function dispatchApi(deps: ApiDeps, r: ApiRequest): Promise<ApiAnswer | undefined> {
  const { core, router } = deps;
  let m: ReturnType<Router['match']>;
  let owner: Owner | undefined;
  try {
    m = router.match(r.method, r.url.pathname);
    if (m === undefined) throw new AppError('NOT_FOUND', `no route ${r.method} ${r.url.pathname.slice(0, 100)}`);
    if (m === 405) throw new AppError('INVALID_ARGUMENT', `method ${r.method} not allowed here`, { httpStatus: 405 });
    // Public routes authenticate themselves (e.g. passport minting checks the credential): no owner at all there.
    owner = m.route.auth === 'public' ? undefined : deps.authenticateOwner(core, r.req, r.url, deps.port());
  } catch (err) {
    const e = toAppError(err);
    if (e.code === 'INTERNAL') core.config.log(`internal error: ${(err as Error)?.stack ?? err}`);
    // Refused before the route was known or the caller signed in: the error keeps no arguments.
    return apiErrorAnswer(core, e);
  }
  const route = m.route;
  let body: Record<string, unknown> = {};
  const evidence = () => ({ route: `${route.method} ${route.path}`, args: route.body ? body : r.method === 'GET' ? queryObject(r.url) : body, knownArgs: route.knownArgs, ownerId: owner?.owner_id });
  try {
    if (!route.rawBody && r.method !== 'GET' && r.method !== 'HEAD' && r.method !== 'DELETE') {
      const raw = await r.readBody();
      if (raw.length) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw.toString('utf8'));
        } catch {
          throw new AppError('INVALID_ARGUMENT', 'body is not valid JSON');
        }
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new AppError('INVALID_ARGUMENT', 'body must be a JSON object');
        body = parsed as Record<string, unknown>;
      }
    }
    const { room, input } = prepareRoute(core, router.checks, route, m.params, owner, body, r.url, r.req);
    const ctx = { core, req: r.req, res: r.res, url: r.url, params: m.params, owner, room } as RouteContext<string, 'owner'>;
    const out = await route.handler(ctx, input);
    // Acknowledged means on disk: the group commit's shared sync (instant after a read).
    await core.durable();
    if (r.res.headersSent || r.res.writableEnded) return undefined;
    if (out instanceof Status) return jsonAnswer(out.status, out.body);
    if (out === undefined) return jsonAnswer(204, {});
    return jsonAnswer(200, out);
  } catch (err) {
    const e = toAppError(err);
    if (e.code === 'INTERNAL') core.config.log(`internal error in ${r.method} ${route.path}: ${(err as Error)?.stack ?? err}`);
    // The argument *shape* (names the route declares, types, sizes), never the values.
    const answer = apiErrorAnswer(core, e, evidence());
    if (!r.res.headersSent) return answer;
    // A handler that already wrote its head (a stream) ends where it was.
    r.res.end();
    return undefined;
  }
}
