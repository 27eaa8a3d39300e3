/** The one door to the core: JSON over /v1, typed results, the API's error body kept whole. */

export interface ApiError {
  code: string;
  message: string;
  error_id?: string;
  reason?: string;
  status: number;
}

export type ApiResult<T> = { ok: true; status: number; data: T } | { ok: false; status: number; error: ApiError };

/** Called when the session ends (401), so the app can show the sign-in page. */
let onUnauthenticated: () => void = () => {};
export function setUnauthenticatedHandler(f: () => void): void {
  onUnauthenticated = f;
}

/** While the server is known to be away, changes are refused up front (stores/connection.ts). */
let offlineRefusal: () => ApiError | undefined = () => undefined;
export function setOfflineRefusal(f: () => ApiError | undefined): void {
  offlineRefusal = f;
}
/** Told when a request could not reach the server at all. */
let onUnreachable: () => void = () => {};
export function setUnreachableHandler(f: () => void): void {
  onUnreachable = f;
}

export async function api<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<ApiResult<T>> {
  const refused = method === 'GET' ? undefined : offlineRefusal();
  if (refused) return { ok: false, status: 0, error: refused };
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    onUnreachable();
    return { ok: false, status: 0, error: { code: 'UNAVAILABLE', message: 'Could not reach the Agent Rooms server.', status: 0 } };
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (res.ok) return { ok: true, status: res.status, data: parsed as T };
  if (res.status === 401 && path !== '/v1/me') onUnauthenticated();
  const e = (parsed as { error?: Partial<ApiError> } | undefined)?.error;
  return {
    ok: false,
    status: res.status,
    error: {
      code: e?.code ?? `HTTP_${res.status}`,
      message: e?.message ?? (res.statusText || 'Request failed'),
      error_id: e?.error_id,
      reason: e?.reason,
      status: res.status,
    },
  };
}

export const get = <T>(path: string, signal?: AbortSignal) => api<T>('GET', path, undefined, signal);
export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', path, body);
export const put = <T>(path: string, body: unknown) => api<T>('PUT', path, body);
export const del = <T>(path: string) => api<T>('DELETE', path);
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body);

/** A one-line human description of an API failure, with its error id for support. */
export function describeError(e: ApiError): string {
  return `${e.message}${e.error_id ? ` (${e.code}, ${e.error_id})` : ` (${e.code})`}`;
}

export const enc = encodeURIComponent;
