/**
 * Paths of the contracts (docs/architecture.md "Contracts"), without zod: the window's client
 * imports this at run time, the schemas only as types.
 */

/** The names of a path's `:params`: `/v1/rooms/:id/tasks/:taskId` gives `'id' | 'taskId'`. */
export type ParamNames<P extends string> = P extends `${string}:${infer K}/${infer Rest}`
  ? K | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer K}`
    ? K
    : never;

/** A path with its parameters filled in, each percent-encoded. */
export function fillPath(path: string, params: Readonly<Record<string, string>> | undefined): string {
  return path.replace(/:([a-zA-Z]+)/g, (_m, k: string) => {
    const v = params?.[k];
    if (v === undefined) throw new Error(`path ${path}: parameter ${k} missing`);
    return encodeURIComponent(v);
  });
}

/** A query string (with its `?`, or empty) from an endpoint's query: absent values left out. */
export function queryString(query: Readonly<Record<string, unknown>> | undefined): string {
  if (!query) return '';
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
