import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, SUPPORTED_PROTOCOL_VERSIONS, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Core } from '../core.js';
import { mcpUrl } from '../core.js';
import type { ToolRegistry } from './registry.js';
import type { McpResourceHost } from '../../../shared/hosts.js';
import type { AgentIdentity } from '../auth/callers.js';
import { AppError, toAppError } from '../errors/app-error.js';
import { newErrorId, recordEvidence } from '../evidence/store.js';
import { callTool, MALFORMED_ARGUMENTS, type CallToolResult } from './call.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import type { McpSession } from '../sessions.js';
import { readBody } from '../http/body.js';
import { holdStream } from '../http/streams.js';
import { RateLimiter } from '../ratelimit.js';
import { profileOf, TOOL_PROFILES, type ToolProfile } from './profiles.js';

export const MCP_BODY_LIMIT = 1024 * 1024;

/** A call on this endpoint is answered over HTTP, read by its client in a later turn: writes that start nothing may follow the answer. */
const ANSWERED_OVER_HTTP = { writeBehind: true };
/** The same, while other sessions call too: those writes stay in the call's own commit. */
const ANSWERED_AMONG_OTHERS = { writeBehind: false };

/** How recently another session's call makes a call one among others. */
export const OTHERS_WITHIN_MS = 20;

declare module '../core.js' {
  interface CoreServices {
    /** The MCP endpoint's last tool call (which session, when): whether a call is one among others. */
    lastMcpCall: { session: string; at: number };
    /** The bucket of `initialize` per credential (core.config.mcpSessionLimits). */
    mcpInitializeLimiter: RateLimiter;
  }
}

/**
 * Whether a call may write behind its answer (db/open.ts `writeBehind`): only while its session
 * calls alone. With several sessions calling at once (agents at work side by side, the ten
 * clients of the benchmark) the loop has no idle moment to spend on a second commit, and one
 * commit per call serves them best (docs/performance.md, "Deliveries written behind the answer").
 */
function answeredAs(core: Core, session: string): { writeBehind: boolean } {
  const now = performance.now();
  const last = core.services.lastMcpCall;
  const alone = last.session === '' || last.session === session || now - last.at > OTHERS_WITHIN_MS;
  last.session = session;
  last.at = now;
  return alone ? ANSWERED_OVER_HTTP : ANSWERED_AMONG_OTHERS;
}
const VERSION = '0.1.0';

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}, data?: Record<string, unknown>) {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id: null }));
}

function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : h;
}

/**
 * A tools/call whose name or arguments have the wrong JSON type would be refused by the SDK
 * as a bare JSON-RPC error, without an error_id. Carry the fault through to callTool instead,
 * so the caller gets the same structured tool error (stored evidence, diagnose_error) as for
 * any other bad argument.
 */
export function normalizeToolCalls(body: unknown): void {
  for (const msg of Array.isArray(body) ? body : [body]) {
    if (!msg || typeof msg !== 'object' || (msg as { method?: unknown }).method !== 'tools/call') continue;
    const m = msg as { params?: unknown };
    if (!m.params || typeof m.params !== 'object' || Array.isArray(m.params)) m.params = {};
    const params = m.params as Record<string, unknown>;
    if (typeof params.name !== 'string') params.name = '';
    const args = params.arguments;
    if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
      params.arguments = { [MALFORMED_ARGUMENTS]: Array.isArray(args) ? 'array' : args === null ? 'null' : typeof args };
    }
  }
}

/** One `tools/call` request as the fast path takes it (see toolCallOf). */
interface ToolCallRequest {
  jsonrpc: '2.0';
  id: string | number;
  method: 'tools/call';
  params: { name: string; arguments?: Record<string, unknown>; _meta?: { progressToken?: string | number } };
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAMS_KEYS = new Set(['name', 'arguments', '_meta']);
const META_KEYS = new Set(['progressToken']);
const PROTOCOL_VERSIONS = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS);

function plainObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function onlyKeys(o: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const k in o) if (!allowed.has(k)) return false;
  return true;
}

function requestId(v: unknown): v is string | number {
  return typeof v === 'string' || Number.isSafeInteger(v);
}

/**
 * The hot case (docs/performance.md, "The tools/call fast path"): a POST on an existing session
 * carrying one plain JSON-RPC `tools/call` request whose headers the SDK transport would accept
 * (Accept lists both types, Content-Type is exactly application/json, a known or absent
 * MCP-Protocol-Version). Anything else, including every request the SDK would refuse, returns
 * undefined and goes through the SDK, which answers as it always did.
 */
function toolCallOf(req: IncomingMessage, body: unknown): ToolCallRequest | undefined {
  if (req.method !== 'POST') return undefined;
  const accept = req.headers.accept;
  if (typeof accept !== 'string' || !accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  // headersDistinct: a repeated Content-Type is one value to req.headers but a joined (refused) one to the SDK.
  const contentType = req.headersDistinct['content-type'];
  if (contentType?.length !== 1 || contentType[0] !== 'application/json') return undefined;
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && !PROTOCOL_VERSIONS.has(version as string)) return undefined;
  if (!plainObject(body) || !onlyKeys(body, REQUEST_KEYS) || body.jsonrpc !== '2.0' || body.method !== 'tools/call' || !requestId(body.id)) {
    return undefined;
  }
  const params = body.params;
  if (!plainObject(params) || !onlyKeys(params, PARAMS_KEYS) || typeof params.name !== 'string') return undefined;
  if (params.arguments !== undefined && !plainObject(params.arguments)) return undefined;
  const meta = params._meta;
  if (meta !== undefined && (!plainObject(meta) || !onlyKeys(meta, META_KEYS) || (meta.progressToken !== undefined && !requestId(meta.progressToken)))) {
    return undefined;
  }
  return body as unknown as ToolCallRequest;
}

/**
 * `JSON.stringify({ result, jsonrpc: '2.0', id })` for a result of callTool, whose text block is
 * already its structured content as JSON (call.ts): that text is used as it is, not serialized a
 * second time. The fast-path test compares these bytes with the SDK's.
 */
function resultMessage(result: CallToolResult, id: string | number): string {
  const text = result.content[0]!.text;
  return (
    `{"result":{"_meta":${JSON.stringify(result._meta)},"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}` +
    `${result.isError ? ',"isError":true' : ''}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`
  );
}

/**
 * Answers a fast-path tools/call with the bytes the SDK would send: the same callTool, the same
 * JSON-RPC response (a thrown error becomes the JSON-RPC error the SDK's Protocol makes of it),
 * the same SSE headers and `event: message` frame, written at once.
 */
async function answerToolCall(core: Core, registry: ToolRegistry, identity: AgentIdentity, s: McpSession, call: ToolCallRequest, res: ServerResponse) {
  let body: string;
  try {
    const result = await callTool(core, registry, identity, s, call.params.name, call.params.arguments, answeredAs(core, s.id));
    body = resultMessage(result, call.id);
  } catch (err) {
    const e = (err ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
    const error = { code: Number.isSafeInteger(e.code) ? e.code : -32603, message: e.message ?? 'Internal error', ...(e.data !== undefined && { data: e.data }) };
    body = JSON.stringify({ jsonrpc: '2.0', id: call.id, error });
  }
  if (res.destroyed) return;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'mcp-session-id': s.id });
  res.end(body);
}

/** One MCP server per session, listing the tools of the session's profile; tool schemas come prebuilt from the registry. */
function makeServer(core: Core, registry: ToolRegistry, host: McpResourceHost, profile: ToolProfile, session: () => McpSession | undefined): Server {
  const server = new Server(
    { name: 'agent-rooms', version: VERSION },
    {
      capabilities: { tools: { listChanged: false }, ...(host === 'claude-code' ? { experimental: { 'claude/channel': {} } } : {}) },
      instructions: SERVER_INSTRUCTIONS,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async (_req, extra) => {
    const id = extra.authInfo?.extra?.identity as AgentIdentity;
    return { tools: registry.list(id.scopes, profile) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const id = extra.authInfo?.extra?.identity as AgentIdentity;
    const s = session();
    const sessionInfo = s ?? { id: extra.sessionId ?? '', host, toolCalls: 0 };
    return callTool(core, registry, id, sessionInfo, req.params.name, req.params.arguments, answeredAs(core, sessionInfo.id));
  });
  return server;
}

/**
 * Registers a new MCP session of `identity` (the transport's or, in tests, an in-process
 * stand-in) and enforces the per-credential and total caps; `capsEnforced` settles once older
 * sessions over a cap are closed.
 */
export function openMcpSession(
  core: Core,
  o: { id: string; identity: AgentIdentity; host: McpResourceHost; url: URL; transport: McpSession['transport']; server: McpSession['server'] },
): { session: McpSession; capsEnforced: Promise<number> } {
  const now = Date.now();
  const session: McpSession = {
    id: o.id,
    label: o.id.replace(/-/g, '').slice(0, 8),
    plate: o.identity.plate,
    agentId: o.identity.agentId,
    ownerId: o.identity.ownerId,
    credentialId: o.identity.credentialId,
    deviceId: o.identity.deviceId,
    host: o.host,
    transport: o.transport,
    server: o.server,
    createdAt: now,
    lastSeen: now,
    getStreams: 0,
    toolCalls: 0,
    channels: o.host === 'claude-code' && channelOptIn(o.url),
  };
  core.sessions.add(session);
  const caps = core.config.mcpSessionLimits;
  return { session, capsEnforced: core.sessions.enforceCaps(session, caps.perCredential, caps.total) };
}

/** `?channels=1` (or true/yes) on the connection URL: the session listens for channel pushes. */
function channelOptIn(url: URL): boolean {
  return ['1', 'true', 'yes'].includes((url.searchParams.get('channels') ?? '').toLowerCase());
}

function unauthorized(core: Core, res: ServerResponse, err: AppError, resource: string) {
  const errorId = newErrorId();
  recordEvidence(core.db, { errorId, surface: 'http', tool: 'mcp', error: err });
  res.writeHead(err.httpStatus, {
    'content-type': 'application/json',
    'www-authenticate': `Bearer realm="agent-rooms", error="invalid_token", resource="${resource}"`,
    // Refused before the body was read: close rather than drain whatever body an unauthenticated client sends.
    connection: 'close',
  });
  res.end(JSON.stringify({ error: { code: err.code, message: err.message, error_id: errorId, reason: err.reason } }));
}

/** The `initialize` bucket of a core's MCP sessions. */
export function newInitializeLimiter(limits: { initializePerSecond: number; initializeBurst: number }): RateLimiter {
  return new RateLimiter({ perSecond: limits.initializePerSecond, burst: limits.initializeBurst });
}

/** What the MCP endpoint is given (mcp imports no capability): the tools, and how an agent is authenticated. */
export interface McpEndpoint {
  registry: ToolRegistry;
  /** A passport or credential presented on `audience` (an MCP URL) to the agent it stands for; UNAUTHENTICATED otherwise. */
  authenticate: (core: Core, token: string | undefined, audience: string) => Promise<AgentIdentity>;
}

/** Handles a request on `/mcp` or `/mcp/<host>`: authentication, the session binding, then the SDK transport. */
export async function handleMcp(
  core: Core,
  endpoint: McpEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
  host: McpResourceHost,
  url: URL,
): Promise<void> {
  const resource = mcpUrl(core, host);
  let identity: AgentIdentity;
  try {
    identity = await endpoint.authenticate(core, bearer(req) ?? url.searchParams.get('key') ?? undefined, resource);
  } catch (err) {
    return unauthorized(core, res, toAppError(err), resource);
  }
  const authReq = req as IncomingMessage & { auth?: unknown };
  authReq.auth = { token: '', clientId: identity.plate, scopes: [], expiresAt: identity.exp, extra: { identity } };

  let body: unknown;
  if (req.method === 'POST') {
    try {
      const raw = await readBody(req, MCP_BODY_LIMIT);
      body = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      const e = toAppError(err);
      // Refused unread: close the connection rather than drain the rest of the body.
      if (e.code === 'PAYLOAD_TOO_LARGE') return jsonRpcError(res, 413, -32600, `request body over ${MCP_BODY_LIMIT} bytes`, { connection: 'close' });
      if (e.httpStatus === 408) return jsonRpcError(res, 408, -32600, 'request body not received in time', { connection: 'close' });
      return jsonRpcError(res, 400, -32700, 'Parse error: body is not JSON');
    }
  }

  normalizeToolCalls(body);

  const sid = req.headers['mcp-session-id'];
  if (typeof sid === 'string' && sid) {
    const s = core.sessions.get(sid);
    if (!s || s.host !== host) return jsonRpcError(res, 404, -32001, 'Session not found; initialize a new session');
    if (s.plate !== identity.plate) return jsonRpcError(res, 403, -32003, 'this session belongs to another agent');
    s.lastSeen = Date.now();
    if (req.method === 'GET') {
      holdStream(core, res);
      s.getStreams++;
      res.once('close', () => {
        s.getStreams--;
        s.lastSeen = Date.now();
      });
    }
    const call = toolCallOf(req, body);
    if (call) return answerToolCall(core, endpoint.registry, identity, s, call, res);
    await s.transport.handleRequest(authReq as never, res, body);
    return;
  }

  if (req.method !== 'POST' || !isInitializeRequest(body)) {
    return jsonRpcError(res, 400, -32000, 'Bad Request: no valid session id; send initialize first');
  }
  // The profile is fixed when the session starts (docs/core.md, "Tool profiles").
  const profile = profileOf(url);
  if (!profile) {
    const err = new AppError('INVALID_ARGUMENT', `tools must be one of ${TOOL_PROFILES.join(', ')}`, { reason: 'unknown_tool_profile' });
    const errorId = newErrorId();
    recordEvidence(core.db, { errorId, surface: 'http', tool: 'mcp initialize', error: err, plate: identity.plate });
    return jsonRpcError(res, 400, -32602, `${err.message} (error_id ${errorId})`, {}, { code: err.code, reason: err.reason, error_id: errorId });
  }
  // Each session costs memory: a credential may open only so many, so fast.
  try {
    core.services.mcpInitializeLimiter.take(identity.credentialId);
  } catch (err) {
    const e = toAppError(err);
    recordEvidence(core.db, { errorId: newErrorId(), surface: 'http', tool: 'mcp initialize', error: e, plate: identity.plate });
    return jsonRpcError(res, 429, -32000, `too many new sessions for this credential: ${e.message}`, {
      'retry-after': String(Math.ceil((e.retryAfterMs ?? 1000) / 1000)),
    });
  }

  let session: McpSession | undefined;
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    // Answers to POSTed requests are one JSON body, not an SSE stream (docs/performance.md, "JSON answers").
    enableJsonResponse: true,
    onsessioninitialized: (id) => {
      const opened = openMcpSession(core, { id, identity, host, url, transport, server });
      session = opened.session;
      void opened.capsEnforced;
    },
    onsessionclosed: (id) => {
      void core.sessions.close(id);
    },
  });
  transport.onclose = () => {
    if (session) void core.sessions.close(session.id);
  };
  const server = makeServer(core, endpoint.registry, host, profile, () => session);
  await server.connect(transport);
  await transport.handleRequest(authReq as never, res, body);
  if (!session) {
    // The initialize was refused (e.g. a bad Accept header): keep no state, and it costs no
    // token of the initialize limit (only sessions that exist cost memory).
    core.services.mcpInitializeLimiter.refund(identity.credentialId);
    await transport.close().catch(() => {});
    await server.close().catch(() => {});
  }
}
