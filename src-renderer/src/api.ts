/** The one door to the core: JSON over /v1, typed results, the API's error body kept whole. */
import type { EventsTicket, LoginPreview, SessionGrant } from './types';

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
 * The UI's credential: a session token the page got from POST /v1/ui/login, kept in this
 * tab's sessionStorage (origin-scoped, so port-scoped, unlike a cookie) and sent only as a
 * header on requests to this origin. Nothing is stored as a cookie.
 */
const SESSION_KEY = 'agent-rooms.session';

function storage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined; // storage disabled (or no window: the stores run in Node): the token lives in memory
  }
}

/** Where the session token is kept. */
export interface TokenSource {
  get(): string | null;
  set(token: string | null): void;
}

/** The page's default: this tab's sessionStorage, read once at start. */
function tabSession(): TokenSource {
  let token: string | null = storage()?.getItem(SESSION_KEY) ?? null;
  return {
    get: () => token,
    set: (t) => {
      token = t;
      const st = storage();
      if (!st) return;
      if (t) st.setItem(SESSION_KEY, t);
      else st.removeItem(SESSION_KEY);
    },
  };
}

/**
 * Where requests go and with which token. The page uses the defaults (same origin, this tab's
 * session); the store tests run the same stores in Node against a real server on another origin.
 */
export interface ApiConfig {
  /** Prefix of every /v1 path: '' is this page's origin. */
  baseUrl: string;
  tokens: TokenSource;
  fetch: (input: string, init: RequestInit) => Promise<Response>;
}

const config: ApiConfig = { baseUrl: '', tokens: tabSession(), fetch: (input, init) => fetch(input, init) };

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
 * Tabs of this origin share the session on request: a new tab (a room opened in a new tab)
 * asks the open ones over a BroadcastChannel, which only pages of this same origin (so this
 * port) can join. A tab answers only with the token it holds itself.
 */
const channel: BroadcastChannel | null = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('agent-rooms.session');
let waiting: ((token: string) => void) | null = null;
if (channel) {
  channel.onmessage = (ev: MessageEvent<{ type?: string; token?: string }>) => {
    const m = ev.data;
    const own = getSessionToken();
    if (m?.type === 'ask' && own) channel.postMessage({ type: 'token', token: own });
    else if (m?.type === 'token' && typeof m.token === 'string' && m.token.startsWith('ars_') && waiting) waiting(m.token);
  };
}

/** Without a session of its own, this tab borrows one from another open tab of this origin, if any answers soon. */
export function borrowSession(waitMs = 250): Promise<boolean> {
  if (getSessionToken() || !channel) return Promise.resolve(Boolean(getSessionToken()));
  return new Promise((resolve) => {
    const done = (token: string | null) => {
      waiting = null;
      clearTimeout(timer);
      if (token && !getSessionToken()) setSessionToken(token);
      resolve(Boolean(getSessionToken()));
    };
    const timer = setTimeout(() => done(null), waitMs);
    waiting = done;
    channel.postMessage({ type: 'ask' });
  });
}

function authHeaders(): Record<string, string> {
  const token = getSessionToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

export async function api<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<ApiResult<T>> {
  // The events ticket and sign-in/out still go out while offline: reconnecting needs a fresh ticket.
  const refused = method === 'GET' || path === '/v1/events/ticket' || path.startsWith('/v1/ui/') ? undefined : offlineRefusal();
  if (refused) return { ok: false, status: 0, error: refused };
  let res: Response;
  try {
    res = await config.fetch(config.baseUrl + path, {
      method,
      credentials: 'omit',
      headers:
        body === undefined
          ? { accept: 'application/json', ...authHeaders() }
          : { accept: 'application/json', 'content-type': 'application/json', ...authHeaders() },
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
  if (res.status === 401 && path !== '/v1/me' && !path.startsWith('/v1/ui/')) onUnauthenticated();
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

export const previewLogin = (token: string) => post<LoginPreview>('/v1/ui/login/preview', { token });

/** Trades the one-time link for this tab's session token. */
export async function signIn(token: string): Promise<ApiResult<SessionGrant>> {
  const r = await post<SessionGrant>('/v1/ui/login', { token });
  if (r.ok) setSessionToken(r.data.session_token);
  return r;
}

/** Ends the session on the server and forgets the token here. */
export async function signOut(): Promise<void> {
  if (getSessionToken()) await post('/v1/ui/logout', {});
  setSessionToken(null);
}

/** A one-use ticket for the event stream's URL (EventSource cannot send a header). */
export async function eventsUrl(): Promise<string | null> {
  const r = await post<EventsTicket>('/v1/events/ticket', {});
  return r.ok ? `${config.baseUrl}/v1/events?ticket=${encodeURIComponent(r.data.ticket)}` : null;
}

/** A one-line human description of an API failure, with its error id for support. */
export function describeError(e: ApiError): string {
  return `${e.message}${e.error_id ? ` (${e.code}, ${e.error_id})` : ` (${e.code})`}`;
}

export const enc = encodeURIComponent;
