import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { assembleCore, ensurePrimaryOwner, type AssembleOptions } from '../../src-main/core/assemble.js';
import { mcpUrl, type Core } from '../../src-main/core/core.js';
import { openDb } from '../../src-main/core/db/open.js';
import { API_BODY_LIMIT, dispatchApi } from '../../src-main/core/http/api.js';
import { AppError } from '../../src-main/core/errors/app-error.js';
import { callTool } from '../../src-main/core/mcp/call.js';
import { normalizeToolCalls, openMcpSession } from '../../src-main/core/mcp/handler.js';
import { profileOf } from '../../src-main/core/mcp/profiles.js';
import { SERVER_INSTRUCTIONS } from '../../src-main/core/mcp/instructions.js';
import type { McpSession } from '../../src-main/core/sessions.js';
import type { StopStep } from '../../src-main/core/util/repeat.js';
import type { AgentIdentity } from '../../src-main/core/auth/callers.js';
import { isMcpHost, type McpResourceHost } from '../../shared/hosts.js';
import type { CoreEvent } from '../../shared/core-events.js';
import { appProcessRunner } from './app-runner.js';
import { ownerHelpers, scratchFolders, sharedValidator, type ApiResponse, type TestHarness } from './server.js';

/**
 * The in-process test app (docs/testing.md "Three fixtures"): the real core (SQLite, the
 * capabilities' ports, the tool registry and the route table, assembled by
 * src-main/core/assemble.ts as the server does) driven without a listener or an MCP transport.
 * `api` goes through the human API's own dispatch (http/api.ts) with the real owner
 * authentication; `connect` gives a client whose tool calls go through the real agent
 * authentication and mcp/call.ts. Same interface and answers as test/helpers/server.ts, so a
 * test of rules swaps the server opener for `openTestApp`. Routes that write the response
 * themselves (the event stream, a streamed export) answer 501 `needs_http`: test them over HTTP.
 */
export interface TestApp extends TestHarness<AppClient> {
  core: Core;
  /** `fetch` for code that takes one (the renderer's api.ts): a /v1 request of `baseUrl`, answered through `api`. */
  fetch(input: string, init?: RequestInit): Promise<Response>;
  /** Every event the core emitted, in order. */
  events: CoreEvent[];
  /**
   * A /v1 request with exactly these headers (no Authorization added) and this raw body, through
   * the same dispatch as `api`: for tests of what the routes make of any header or body (fuzz-routes).
   */
  request(method: string, path: string, init?: { headers?: Record<string, string>; body?: string }): Promise<ApiResponse>;
}

/** An in-process MCP client: the official client's calls and result shapes. */
export interface AppClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult>;
  listTools(): Promise<{ tools: Tool[] }>;
  /** The instructions `initialize` gives (mcp/instructions.ts). */
  getInstructions(): string | undefined;
  close(): Promise<void>;
  /** The session's id, where the official client keeps it (helpers/core.ts sessionIdOf). */
  transport: { sessionId: string };
}

export interface AppOptions {
  /** `memory` (default): SQLite in memory; `home`: `<home>/rooms.db`, for tests that read the file or reopen it. */
  database?: 'memory' | 'home';
  /** A home of the test's own (kept on stop, e.g. to reopen it with `database: 'home'`); default a temp one, removed on stop. */
  home?: string;
  /** Start the capabilities' background work (wake dispatcher, sweeps, snapshots) as the server does; default off. */
  background?: boolean;
  rateLimit?: AssembleOptions['rateLimit'];
  sessionIdleMs?: number;
  mcpSessionLimits?: AssembleOptions['mcpSessionLimits'];
  maxChain?: number;
  wakeBudget?: number;
  /** Where diagnostics go; default: kept in memory. */
  log?: (line: string) => void;
  /**
   * Every run a wake starts runs the fixture agent (test/fixtures/runner-agent-script.mjs) in
   * process, calling back through this app's client (helpers/app-runner.ts), whatever command
   * the runner names; with `background`, for tests of the wake rules. Default: runs spawn the
   * command, which cannot call back (the app has no listener).
   */
  fixtureRunners?: boolean;
}

/** The in-process app has no port: URLs it builds name port 0, which nothing listens on. */
const APP_BASE_URL = 'http://127.0.0.1:0';

function needsHttp(): never {
  throw new AppError('UNAVAILABLE', 'this route writes its own response (a stream): test it over HTTP (test/helpers/server.ts)', {
    httpStatus: 501,
    reason: 'needs_http',
  });
}

/** The request a handler may read (headers), and a response that refuses to be written in process. */
function requestOf(method: string, url: URL, headers: IncomingHttpHeaders): { req: IncomingMessage; res: ServerResponse } {
  const req = { method, url: url.pathname + url.search, headers, on: () => req, once: () => req, off: () => req };
  const res = { headersSent: false, writableEnded: false, writeHead: needsHttp, write: needsHttp, end: needsHttp, setHeader: needsHttp, on: () => res, once: () => res };
  return { req: req as unknown as IncomingMessage, res: res as unknown as ServerResponse };
}

/** What the MCP transport answers when the token is refused, as the official client reports it. */
function transportError(status: number, body: unknown): Error {
  const e = new Error(`Streamable HTTP error: Error POSTing to endpoint: ${JSON.stringify(body)}`);
  (e as Error & { code?: number }).code = status;
  return e;
}

export async function openTestApp(opts: AppOptions = {}): Promise<TestApp> {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'agent-rooms-app-'));
  const logs: string[] = [];
  const log = opts.log ?? ((l: string) => void logs.push(l));
  const db = opts.database === 'home' ? openDb(join(home, 'rooms.db')) : 'memory';
  const assembled = assembleCore({
    home,
    db,
    log,
    baseUrl: APP_BASE_URL,
    rateLimit: opts.rateLimit,
    sessionIdleMs: opts.sessionIdleMs,
    mcpSessionLimits: opts.mcpSessionLimits,
    wakeLimits: { maxChain: opts.maxChain, wakeBudget: opts.wakeBudget },
    worktreesDir: `${home}-worktrees`,
    // `connect` is defined below; a run only starts once the dispatcher runs, after this returns.
    processRunner: opts.fixtureRunners ? appProcessRunner((bearer, host, o) => connect(bearer, host, o)) : undefined,
  });
  const { core, registry } = assembled;
  const ownerToken = ensurePrimaryOwner(core, 'Ada Owner');
  const events: CoreEvent[] = [];
  const unsubscribe = core.bus.on((e) => void events.push(e));
  const stopSteps: StopStep[] = [];
  if (opts.background) stopSteps.push(...assembled.startCapabilities());
  const clients: AppClient[] = [];

  const dispatch = async (method: string, path: string, headers: IncomingHttpHeaders, text: string | undefined): Promise<ApiResponse> => {
    const url = new URL(path, APP_BASE_URL);
    const { req, res } = requestOf(method, url, headers);
    const answer = url.pathname.startsWith('/v1/')
      ? await dispatchApi(
          { core, router: assembled.router, authenticateOwner: assembled.authenticateOwner, port: () => 0 },
          {
            method,
            url,
            headers,
            req,
            res,
            readBody: async () => {
              const buf = Buffer.from(text ?? '', 'utf8');
              if (buf.length > API_BODY_LIMIT) throw new AppError('PAYLOAD_TOO_LARGE', `request body over ${API_BODY_LIMIT} bytes`);
              return buf;
            },
          },
        )
      : undefined;
    if (!answer) throw new Error(`${method} ${path}: not a /v1 JSON route; test it over HTTP (test/helpers/server.ts)`);
    const wire = JSON.stringify(answer.body);
    const h = new Headers({ 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(wire)), 'cache-control': 'no-store', ...answer.headers });
    // A 204 carries no body on the wire: fetch reads ''.
    return { status: answer.status, body: answer.status === 204 ? '' : JSON.parse(wire), headers: h };
  };

  const api = async (method: string, path: string, body?: unknown, token = ownerToken): Promise<ApiResponse> => {
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers: IncomingHttpHeaders = { host: new URL(APP_BASE_URL).host, authorization: `Bearer ${token}` };
    if (text !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(text));
    }
    return dispatch(method, path, headers, text);
  };

  const request: TestApp['request'] = async (method, path, init = {}) => {
    const headers: IncomingHttpHeaders = { host: new URL(APP_BASE_URL).host };
    for (const [k, v] of Object.entries(init.headers ?? {})) headers[k.toLowerCase()] = v;
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    return dispatch(method, path, headers, init.body);
  };

  async function connect(bearer: string, host?: string, o: { query?: string } = {}): Promise<AppClient> {
    if (host && !isMcpHost(host)) throw transportError(404, { error: { code: 'NOT_FOUND', message: `no MCP resource /mcp/${host}` } });
    const h = (host ?? 'generic') as McpResourceHost;
    const url = new URL(`${APP_BASE_URL}/mcp${host ? `/${host}` : ''}${o.query ?? ''}`);
    const resource = mcpUrl(core, h);
    // Every request is authenticated again, as over HTTP: a revoked credential fails its next call.
    const authenticate = async (): Promise<AgentIdentity> => {
      try {
        return await assembled.mcp.authenticate(core, bearer || url.searchParams.get('key') || undefined, resource);
      } catch (err) {
        const e = err instanceof AppError ? err : new AppError('UNAUTHENTICATED', String(err));
        throw transportError(e.httpStatus, { error: { code: e.code, message: e.message, reason: e.reason } });
      }
    };
    const identity = await authenticate();
    const profile = profileOf(url);
    if (!profile) throw transportError(400, { jsonrpc: '2.0', error: { code: -32602, message: 'unknown tool profile' }, id: null });
    const id = randomUUID();
    const closeNothing = { close: async () => {} };
    // The same session record and caps as the transport's (mcp/handler.ts openMcpSession).
    const opened = openMcpSession(core, {
      id,
      identity,
      host: h,
      url,
      transport: closeNothing as unknown as McpSession['transport'],
      server: closeNothing as unknown as McpSession['server'],
    });
    await opened.capsEnforced;
    // The session's own request: authenticated, bound to its agent, still open.
    const request = async (): Promise<AgentIdentity> => {
      const who = await authenticate();
      const s = core.sessions.get(id);
      if (!s) throw transportError(404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found; initialize a new session' }, id: null });
      if (s.plate !== who.plate) throw transportError(403, { jsonrpc: '2.0', error: { code: -32003, message: 'this session belongs to another agent' }, id: null });
      s.lastSeen = Date.now();
      return who;
    };
    const listTools = async () => {
      const who = await request();
      return JSON.parse(JSON.stringify({ tools: registry.list(who.scopes, profile) })) as { tools: Tool[] };
    };
    // The official client checks each result against the outputSchema of the tools it listed.
    const validators = new Map<string, ReturnType<typeof sharedValidator.getValidator>>();
    for (const t of (await listTools()).tools) if (t.outputSchema) validators.set(t.name, sharedValidator.getValidator(t.outputSchema));
    const client: AppClient = {
      transport: { sessionId: id },
      listTools,
      getInstructions: () => SERVER_INSTRUCTIONS,
      async callTool(params) {
        const who = await request();
        // What the wire would carry, faults included (a non-object `arguments` becomes a structured tool error).
        const msg = JSON.parse(JSON.stringify({ method: 'tools/call', params: { name: params.name, arguments: params.arguments } })) as {
          params: { name: string; arguments?: unknown };
        };
        normalizeToolCalls(msg);
        const result = JSON.parse(JSON.stringify(await callTool(core, registry, who, opened.session, msg.params.name, msg.params.arguments))) as CallToolResult;
        const validate = validators.get(params.name);
        if (validate && !result.isError) {
          if (!result.structuredContent) throw new Error(`Tool ${params.name} has an output schema but did not return structured content`);
          const v = validate(result.structuredContent);
          if (!v.valid) throw new Error(`Structured content does not match the tool's output schema: ${v.errorMessage}`);
        }
        return result;
      },
      async close() {
        await core.sessions.close(id);
      },
    };
    clients.push(client);
    return client;
  }

  let stopped = false;
  const app: TestApp = {
    core,
    events,
    running: { core, baseUrl: APP_BASE_URL, ownerToken, port: 0 },
    home,
    baseUrl: APP_BASE_URL,
    ownerToken,
    api,
    request,
    ...ownerHelpers(api),
    connect,
    async fetch(input, init = {}) {
      const url = new URL(input);
      const token = /^Bearer\s+(\S+)\s*$/i.exec(new Headers(init.headers).get('authorization') ?? '')?.[1] ?? '';
      if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') throw new Error('app.fetch takes a string body');
      const r = await api(init.method ?? 'GET', url.pathname + url.search, init.body ?? undefined, token);
      return new Response(r.status === 204 ? null : JSON.stringify(r.body), { status: r.status, headers: r.headers });
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.all(clients.map((c) => c.close()));
      const scratch = scratchFolders(core);
      // Background work first (reverse order of starting), then the store.
      for (const stop of stopSteps.reverse()) await stop();
      unsubscribe();
      await Promise.all(core.sessions.all().map((s) => core.sessions.close(s.id)));
      core.db.close();
      for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
      if (!opts.home) rmSync(home, { recursive: true, force: true });
    },
  };
  return app;
}
