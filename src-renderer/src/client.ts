/**
 * The window's client of the human API, typed from the contracts (shared/contracts/): one
 * function per endpoint, `client.tasks.create({ params: { id }, body })`, answering the
 * contract's record. No path and no record shape is written in the window (docs/ui.md "The API
 * client"). In the built bundle the contracts are only their methods and paths (the vite
 * config's contract table); zod never ships.
 */
import type { z } from 'zod';
import { contracts } from '../../shared/contracts/index';
import type { BodyOf, Endpoint, OutputOf, ParamsOf, QueryOf } from '../../shared/contracts/contract';
import { fillPath, queryString } from '../../shared/contracts/route-path';
import { api, apiUrl, type ApiResult } from './api';

type Contracts = typeof contracts;

/** Required when the endpoint has them, absent otherwise; optional when every field is. */
type Part<K extends string, T> = [T] extends [undefined] ? { [P in K]?: undefined } : Record<never, never> extends T ? { [P in K]?: T } : { [P in K]: T };

/** What one call takes: the path's parameters, the body, the query, and a signal to abort it. */
export type RequestOf<E extends Endpoint> = Part<'params', keyof ParamsOf<E> extends never ? undefined : ParamsOf<E>> &
  Part<'body', E['body'] extends z.ZodType ? BodyOf<E> : undefined> &
  Part<'query', E['query'] extends z.ZodType ? QueryOf<E> : undefined> & { signal?: AbortSignal };

/** One endpoint's function: the request (optional when nothing in it is required) to the typed answer. */
export type CallOf<E extends Endpoint> = Record<never, never> extends RequestOf<E>
  ? (req?: RequestOf<E>) => Promise<ApiResult<OutputOf<E>>>
  : (req: RequestOf<E>) => Promise<ApiResult<OutputOf<E>>>;

export type Client = { [C in keyof Contracts]: { [N in keyof Contracts[C]]: Contracts[C][N] extends Endpoint ? CallOf<Contracts[C][N]> : never } };

interface AnyRequest {
  params?: Record<string, string>;
  body?: unknown;
  query?: Record<string, unknown>;
  signal?: AbortSignal;
}

/** The path (with its query) one call goes to. */
export function pathOf<E extends Endpoint>(e: E, req?: Pick<RequestOf<E>, 'params' | 'query'>): string {
  const r = req as AnyRequest | undefined;
  return fillPath(e.path, r?.params) + queryString(r?.query);
}

/** The full URL of an endpoint the browser opens itself (an event stream, a download link). */
export function urlOf<E extends Endpoint>(e: E, req?: Pick<RequestOf<E>, 'params' | 'query'>): string {
  return apiUrl(pathOf(e, req));
}

function call(e: { method: string; path: string; session?: 'identity' | 'ticket' }) {
  return (req: AnyRequest = {}) => {
    const body = e.method === 'GET' || e.method === 'DELETE' ? undefined : (req.body ?? {});
    return api(e.method, fillPath(e.path, req.params) + queryString(req.query), body, req.signal, { session: e.session });
  };
}

export const client = Object.fromEntries(
  Object.entries(contracts).map(([cap, endpoints]) => [cap, Object.fromEntries(Object.entries(endpoints).map(([name, e]) => [name, call(e)]))]),
) as unknown as Client;
