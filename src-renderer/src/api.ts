/** The one door to the core: JSON over the human API, typed results, the API's error body kept whole. */

export interface ApiError {
  code: string;
  message: string;
  error_id?: string;
  reason?: string;
  /** What the refusal concerns, when the server says (a merge's conflicting paths and folder). */
  details?: Record<string, unknown>;
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

/*
 * The UI's credential: a session token the page got by signing in (session-api.ts), kept in this
 * origin's localStorage (origin-scoped, so port-scoped, unlike a cookie; it outlives the browser,
 * docs/security.md item 5) and sent only as a header on requests to this origin. Nothing is
 * stored as a cookie.
 */
const SESSION_KEY = 'agent-rooms.session';

function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined; // storage disabled (or no window: the stores run in Node): the token lives in memory
  }
}

/** Where the session token is kept. */
export interface TokenSource {
  get(): string | null;
  set(token: string | null): void;
}

/**
 * The page's default: this origin's localStorage, read at start. A token an earlier version kept
 * in the tab's sessionStorage moves there, so an open tab stays signed in across the upgrade.
 */
function browserSession(): TokenSource {
  const st = storage();
  let token: string | null = st?.getItem(SESSION_KEY) ?? null;
  try {
    const old = window.sessionStorage.getItem(SESSION_KEY);
    if (old) {
      window.sessionStorage.removeItem(SESSION_KEY);
      if (!token && old.startsWith('ars_')) st?.setItem(SESSION_KEY, (token = old));
    }
  } catch {
    // no sessionStorage: nothing to move
  }
  return {
    get: () => token,
    set: (t) => {
      token = t;
      const s = storage();
      if (!s) return;
      if (t) s.setItem(SESSION_KEY, t);
      else s.removeItem(SESSION_KEY);
    },
  };
}

/**
 * Where requests go and with which token. The page uses the defaults (same origin, this
 * browser's session); the store tests run the same stores in Node against a real server on another origin.
 */
export interface ApiConfig {
  /** Prefix of every path of the human API: '' is this page's origin. */
  baseUrl: string;
  tokens: TokenSource;
  fetch: (input: string, init: RequestInit) => Promise<Response>;
}

const config: ApiConfig = { baseUrl: '', tokens: browserSession(), fetch: (input, init) => fetch(input, init) };

export function configureApi(c: Partial<ApiConfig>): void {
  Object.assign(config, c);
}

export function getSessionToken(): string | null {
  return config.tokens.get();
}

export function setSessionToken(token: string | null): void {
  config.tokens.set(token);
}

/*
 * Every tab of this origin shares the one session in localStorage. When another tab signs out or
 * signs in as someone else, this one follows: no tab goes on showing one owner's data while the
 * browser holds another's session.
 */
let onSessionChanged: (token: string | null) => void = () => window.location.reload();
export function setSessionChangedHandler(f: (token: string | null) => void): void {
  onSessionChanged = f;
}
if (typeof window !== 'undefined' && typeof window.addEventListener === 'function') {
  window.addEventListener('storage', (ev: StorageEvent) => {
    if (ev.key !== SESSION_KEY && ev.key !== null) return;
    const now = storage()?.getItem(SESSION_KEY) ?? null;
    if (now === getSessionToken()) return;
    onSessionChanged(now);
  });
}

/**
 * How Settings names a session (`uis_` and the first 16 hex digits of the token's SHA-256, as
 * the server derives it): the page finds "this browser" in the list without sending its token anywhere.
 */
export async function sessionPublicId(token: string | null = getSessionToken()): Promise<string | null> {
  if (!token || typeof crypto === 'undefined' || !crypto.subtle) return null;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
  return `uis_${hex.slice(0, 16)}`;
}

function authHeaders(token: string | null = getSessionToken()): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** The full URL of a path of this server (an event stream, a download link the browser opens). */
export function apiUrl(path: string): string {
  return config.baseUrl + path;
}

/** How a call is sent: `session`, it is about the window's session (its contract's `session`; shared/contracts/contract.ts). */
export interface CallOptions {
  session?: 'identity' | 'ticket';
  /** The session token to send instead of this browser's: ending the session a sign-in replaced (session-api.ts). */
  token?: string;
}

/** One request (the typed client, client.ts, calls this for every endpoint). */
export async function api<T>(method: string, path: string, body?: unknown, signal?: AbortSignal, opts: CallOptions = {}): Promise<ApiResult<T>> {
  const session = opts.session;
  // The events ticket and sign-in/out still go out while offline: reconnecting needs a fresh ticket.
  const refused = method === 'GET' || session ? undefined : offlineRefusal();
  if (refused) return { ok: false, status: 0, error: refused };
  let res: Response;
  try {
    res = await config.fetch(config.baseUrl + path, {
      method,
      credentials: 'omit',
      headers:
        body === undefined
          ? { accept: 'application/json', ...authHeaders(opts.token) }
          : { accept: 'application/json', 'content-type': 'application/json', ...authHeaders(opts.token) },
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
  if (res.status === 401 && session !== 'identity') onUnauthenticated();
  const e = (parsed as { error?: Partial<ApiError> } | undefined)?.error;
  return {
    ok: false,
    status: res.status,
    error: {
      code: e?.code ?? `HTTP_${res.status}`,
      message: e?.message ?? (res.statusText || 'Request failed'),
      error_id: e?.error_id,
      reason: e?.reason,
      ...(e?.details && typeof e.details === 'object' ? { details: e.details } : {}),
      status: res.status,
    },
  };
}

export const get = <T>(path: string, signal?: AbortSignal) => api<T>('GET', path, undefined, signal);
export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', path, body);
export const put = <T>(path: string, body: unknown) => api<T>('PUT', path, body);
export const del = <T>(path: string) => api<T>('DELETE', path);
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body);

/**
 * A one-line human description of an API failure: the server's sentence and the error id to
 * quote for support. The error code (`RUNNERS_NOT_ALLOWED`) is API words, not people's: views
 * that show an ApiError put it in a detail (States.tsx ErrorNote), never in the sentence.
 */
export function describeError(e: ApiError): string {
  return `${e.message}${e.error_id ? ` (ref ${e.error_id})` : ''}`;
}

export const enc = encodeURIComponent;
