import { z } from 'zod';

/**
 * The wire face of one /v1 endpoint, declared once (docs/architecture.md "Contracts"): its
 * method and path, the schemas of its body and query, and the schema of its answer. The server
 * generates the route from it (src-main/core/usecase/define.ts) and the window's client is typed
 * from it (src-renderer/src/client.ts), so neither side writes a path or a record shape of its
 * own. Nothing here knows the server: a contract is data and schemas.
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

import type { ParamNames } from './route-path.js';

export type { ParamNames };

/** What an endpoint answers that is not a JSON record. */
export type AnswerKind = 'json' | 'empty' | 'stream';

export interface Endpoint<
  M extends Method = Method,
  P extends string = string,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  O extends z.ZodType = z.ZodType,
> {
  method: M;
  path: P;
  /** One line: what it does, for docs/contract.md. */
  summary: string;
  /** The JSON body's schema (POST, PUT, PATCH). */
  body?: B;
  /** The query string's schema (strings in; coerce numbers). */
  query?: Q;
  /** The answer's schema (a 200 or 201 JSON body). */
  output: O;
  /** The success status when it is always the same and not 200 (201 for a creation; a use case may choose per answer). */
  status?: number;
  /** `empty`: 204 and no body; `stream`: the answer is a byte or event stream, `output` describes its items. Default `json`. */
  answer?: AnswerKind;
  /** Who may call: any signed-in owner (default), the primary owner only, or anyone (the endpoint checks its own credential). */
  auth?: 'owner' | 'primary' | 'public';
  /**
   * The call is about the window's session, so it goes out even while the server is known to be
   * away: `identity` signs in or out or asks who is signed in (a 401 is its answer, not the session
   * ending); `ticket` gets the event stream's ticket (reconnecting needs a fresh one).
   */
  session?: 'identity' | 'ticket';
}

/**
 * Declares an endpoint (types kept exact for the server and the client). Its `body` and `query`
 * are typed as given, not as the optional fields of `Endpoint`: `E['body']` of an optional field
 * would be `B | undefined`, which no `extends z.ZodType` test passes, so every handler's body and
 * every client call's body would be typed as absent.
 */
export function endpoint<
  const M extends Method,
  const P extends string,
  O extends z.ZodType,
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
>(e: Endpoint<M, P, B, Q, O>): Endpoint<M, P, B, Q, O> & { body: B; query: Q } {
  return e as Endpoint<M, P, B, Q, O> & { body: B; query: Q };
}

/** A capability's endpoints, by name (`contracts.tasks.create`). */
export type Contract = Record<string, Endpoint>;

/** The path parameters an endpoint takes. */
export type ParamsOf<E extends Endpoint> = { [K in ParamNames<E['path']>]: string };

/** The body a caller sends (the schema's input side). */
export type BodyOf<E extends Endpoint> = E['body'] extends z.ZodType ? z.input<E['body']> : undefined;

/** The query a caller sends: the schema's input, each value as it goes in the URL. */
export type QueryOf<E extends Endpoint> = E['query'] extends z.ZodType ? z.input<E['query']> : undefined;

/** The answer a caller reads. */
export type OutputOf<E extends Endpoint> = z.output<E['output']>;

/** The answer the server must produce (the schema's input side: what `present` returns). */
export type AnswerOf<E extends Endpoint> = z.input<E['output']>;

/** The answer of an endpoint that sends nothing back (204). */
export const noContent = z.undefined();
