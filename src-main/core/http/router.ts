import { AppError } from '../errors/app-error.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Core } from '../context.js';
import type { Owner } from '../owners/store.js';

export interface RouteContext {
  core: Core;
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  /** The authenticated human; absent only on routes marked `public`. */
  owner: Owner;
  /** Parsed JSON body (POST/PUT/PATCH), `{}` when empty. */
  body: Record<string, unknown>;
}

/** A handler returns the JSON to send (200), `{status, body}`, or nothing when it wrote the response itself. */
export type RouteResult = unknown;

export interface Route {
  method: string;
  path: string;
  /** No owner authentication (e.g. passport minting, which authenticates the credential itself). */
  public?: boolean;
  /** Handles its own body (e.g. streaming uploads). */
  rawBody?: boolean;
  handler: (ctx: RouteContext) => RouteResult | Promise<RouteResult>;
}

export class Status {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

interface Compiled {
  route: Route;
  re: RegExp;
  keys: string[];
}

export class Router {
  private readonly compiled: Compiled[] = [];

  constructor(routes: Route[]) {
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
