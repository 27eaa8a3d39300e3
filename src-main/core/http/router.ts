import type { z } from 'zod';
import { AppError } from '../errors/app-error.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Core, CorePorts, RoomStanding } from '../core.js';
import type { Owner } from '../auth/callers.js';
import { parseWith } from './validate.js';
import { sameOrigin } from './guard.js';
import type { ParamNames } from '../../../shared/contracts/route-path.js';

/** Who may call a route: any signed-in owner (default), the primary owner only, or anyone (the route authenticates itself). */
export type RouteAuth = 'owner' | 'primary' | 'public';

/** The calling human's standing in the room named by the path's `:id`, checked by the router before the handler runs. */
export type RoomAccess = 'member' | 'admin';

/** The room a `room:` route acts on, as the router found it. */
export type RouteRoom = RoomStanding;

/** The names of a path's `:params` (shared/contracts/route-path.ts). */
export type { ParamNames };

interface BaseContext<P extends string> {
  core: Core;
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: { [K in ParamNames<P>]: string };
}

/** What a handler knows: the owner (absent on public routes) and, on `room:` routes, the room. */
export type RouteContext<P extends string = string, A extends RouteAuth = 'owner', R extends RoomAccess | undefined = undefined> = BaseContext<P> &
  (A extends 'public' ? { owner?: undefined } : { owner: Owner }) &
  (R extends RoomAccess ? { room: RouteRoom } : unknown);

/** The parsed body and query; `{}` where the route declares no schema. */
export interface RouteInput<B, Q> {
  body: B;
  query: Q;
}

type Infer<S> = S extends z.ZodType ? z.infer<S> : Record<string, never>;

export interface RouteSpec<
  P extends string,
  A extends RouteAuth,
  R extends RoomAccess | undefined,
  B extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: P;
  /** Default `owner`. */
  auth?: A;
  /** With `auth: 'primary'`: the refusal's message for other owners, when it can say where to go instead. */
  notPrimary?: string;
  /** The caller must be a human member (or admin) of the room `:id`; 404 when not a member, 403 when not admin. */
  room?: R;
  /** `'same'`: a present Origin must be this server (403 `cross_origin`), e.g. sign-in and sign-out, which change who the browser is. */
  origin?: 'same';
  /** The JSON body's schema (failures are INVALID_ARGUMENT naming the fields, never echoing values). */
  body?: B;
  /** The query string's schema: each parameter once, as a string (use z.coerce for numbers). */
  query?: Q;
  /** Handles its own body (e.g. streaming uploads). */
  rawBody?: boolean;
  /** Returns the JSON to send (200), `new Status(code, body)`, or nothing after writing the response itself (204 when nothing was written). */
  handler: (ctx: RouteContext<P, A, R>, input: RouteInput<Infer<B>, Infer<Q>>) => unknown;
}

/** A route as the router keeps it (the handler's types erased). */
export interface Route {
  method: string;
  path: string;
  auth: RouteAuth;
  notPrimary?: string;
  room?: RoomAccess;
  origin?: 'same';
  body?: z.ZodType;
  query?: z.ZodType;
  rawBody?: boolean;
  /** The argument names the route declares: evidence keeps their shape, and only the count of others. */
  knownArgs: ReadonlySet<string>;
  handler: (ctx: RouteContext<string, RouteAuth, RoomAccess | undefined>, input: RouteInput<unknown, unknown>) => unknown;
}

function schemaKeys(s: z.ZodType | undefined): string[] {
  if (!s) return [];
  // A schema whose keys zod cannot show (a checked record) names them in its metadata.
  const named = (s.meta() as { argNames?: unknown } | undefined)?.argNames;
  if (Array.isArray(named)) return named.map(String);
  const shape = (s as { shape?: Record<string, unknown> }).shape;
  if (shape && typeof shape === 'object') return Object.keys(shape);
  // A union of objects (e.g. add a human or an agent): the keys of every branch.
  const options = (s as { options?: z.ZodType[] }).options;
  if (Array.isArray(options)) return options.flatMap(schemaKeys);
  // A transform or refinement (e.g. the runner body, checked against the form its `preset` key names): the keys it declares.
  const def = (s as { def?: { in?: z.ZodType; out?: z.ZodType; innerType?: z.ZodType } }).def;
  return def ? [...schemaKeys(def.in), ...schemaKeys(def.innerType)] : [];
}

/** Declares a human API route/** Declares a human API route: its auth, room check, body and query schemas beside the handler. */
export function defineRoute<
  const P extends string,
  A extends RouteAuth = 'owner',
  R extends RoomAccess | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
>(spec: RouteSpec<P, A, R, B, Q>): Route {
  if (spec.room && !spec.path.includes('/:id')) throw new Error(`route ${spec.method} ${spec.path}: a room route needs :id in its path`);
  return {
    method: spec.method,
    path: spec.path,
    auth: spec.auth ?? 'owner',
    notPrimary: spec.notPrimary,
    room: spec.room,
    origin: spec.origin,
    body: spec.body,
    query: spec.query,
    rawBody: spec.rawBody,
    knownArgs: new Set([...schemaKeys(spec.body), ...schemaKeys(spec.query)]),
    handler: spec.handler as Route['handler'],
  };
}

export class Status {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/** The query string as an object for a route's query schema; a repeated name keeps its last value, as the routes always read it. */
export function queryObject(url: URL): Record<string, string> {
  return Object.fromEntries(url.searchParams);
}

/** The router's checks: the core's ports (core.ts CorePorts; the router imports no capability). */
export type RouterChecks = Pick<CorePorts, 'humanRoom'>;

/** Runs the origin, primary-owner and room checks, then parses the body and query: everything a handler may assume. */
export function prepareRoute(
  core: Core,
  checks: RouterChecks,
  route: Route,
  params: Record<string, string>,
  owner: Owner | undefined,
  body: Record<string, unknown>,
  url: URL,
  req: IncomingMessage,
): { room?: RouteRoom; input: RouteInput<unknown, unknown> } {
  if (route.origin === 'same' && !sameOrigin(req, Number(new URL(core.baseUrl).port))) {
    throw new AppError('FORBIDDEN', 'cross-origin request refused', { reason: 'cross_origin' });
  }
  if (route.auth === 'primary' && !owner?.is_primary) {
    throw new AppError('FORBIDDEN', route.notPrimary ?? 'only the primary owner may do this', { reason: 'not_primary_owner' });
  }
  const room = route.room && owner ? checks.humanRoom(core, params.id!, owner.owner_id, route.room) : undefined;
  const input: RouteInput<unknown, unknown> = {
    body: route.body ? parseWith(route.body, body) : {},
    query: route.query ? parseWith(route.query, queryObject(url)) : {},
  };
  return { room, input };
}

interface Compiled {
  route: Route;
  re: RegExp;
  keys: string[];
}

export class Router {
  private readonly compiled: Compiled[] = [];

  constructor(
    routes: Route[],
    readonly checks: RouterChecks,
  ) {
    for (const route of routes) {
      const keys: string[] = [];
      const re = new RegExp(
        '^' +
          route.path.replace(/:([a-zA-Z]+)/g, (_m, k: string) => {
            keys.push(k);
            return '([^/]+)';
          }) +
          '/?$',
      );
      this.compiled.push({ route, re, keys });
    }
  }

  /** The matching route, `405` when the path exists for other methods, or undefined. */
  match(method: string, path: string): { route: Route; params: Record<string, string> } | 405 | undefined {
    let pathMatched = false;
    for (const c of this.compiled) {
      const m = c.re.exec(path);
      if (!m) continue;
      pathMatched = true;
      if (c.route.method !== method) continue;
      const params: Record<string, string> = {};
      c.keys.forEach((k, i) => {
        try {
          params[k] = decodeURIComponent(m[i + 1]!);
        } catch {
          throw new AppError('INVALID_ARGUMENT', `malformed percent-encoding in the path parameter ${k}`, { reason: 'bad_encoding' });
        }
      });
      return { route: c.route, params };
    }
    return pathMatched ? 405 : undefined;
  }
}
