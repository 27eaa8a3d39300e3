import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { startCore, type RunningCore, type StartOptions } from '../../src-main/core/start.js';
import { httpTimeouts } from '../../src-main/core/http/server.js';

/**
 * The tests' fetch (undici) reuses an idle connection until one second before the server's
 * `Keep-Alive: timeout=`; the server and the test share one event loop, so on a busy machine a
 * late timer let the server close a connection the client was reusing (ECONNRESET). Test servers
 * keep idle connections a minute: no test leaves one idle that long.
 */
httpTimeouts.keepAliveMs = 60_000;
import { scratchBase } from '../../src-main/core/wakes/secrets.js';
import type { ToolErrorBody } from '../../shared/errors.js';
import type { Core } from '../../src-main/core/core.js';

/**
 * The official client's own output-schema check, each schema compiled once per test file: the client
 * compiles every listed outputSchema on each tools/list, which made a 50-client test spend seconds in Ajv.
 */
const ajv = new AjvJsonSchemaValidator();
const compiled = new Map<string, ReturnType<jsonSchemaValidator['getValidator']>>();
export const sharedValidator: jsonSchemaValidator = {
  getValidator(schema) {
    const key = JSON.stringify(schema);
    let v = compiled.get(key);
    if (!v) compiled.set(key, (v = ajv.getValidator(schema)));
    return v as never;
  },
};

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestAgent {
  plate: string;
  agent_id: string;
  handle: string;
  credential: string;
  credential_id: string;
  device_id: string;
}

/** What ok/fails/call need of a client: the official MCP client and the in-process one (app.ts) both have it. */
export interface ToolCaller {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<object>;
}

/**
 * What a test drives, over HTTP (the real server) or in process (openTestApp in app.ts): the
 * same calls, the same answers.
 */
export interface TestHarness<C extends ToolCaller = ToolCaller> {
  running: { core: Core; baseUrl: string; ownerToken: string; port: number };
  home: string;
  baseUrl: string;
  ownerToken: string;
  api<T = any>(method: string, path: string, body?: unknown, token?: string): Promise<ApiResponse<T>>;
  /** A new agent of the owner with this token (default: primary), with a credential. */
  agent(name: string, opts?: { scopes?: string[]; token?: string }): Promise<TestAgent>;
  room(name: string, token?: string): Promise<string>;
  /** Adds agents (by plate) to a room, as their owner. */
  join(roomId: string, plate: string, token?: string): Promise<void>;
  /** A client connected with this bearer token (credential or passport), tools listed. */
  connect(bearer: string, host?: string, opts?: { query?: string }): Promise<C>;
  /** A second owner, added as a member of nothing yet. */
  owner(name: string): Promise<{ owner_id: string; token: string }>;
  stop(): Promise<void>;
}

/** A real server on a temp home and port 0, with the official MCP client. */
export interface TestServer extends TestHarness<Client> {
  running: RunningCore;
  /** As TestHarness's; `beforeConnect` gets the client first (e.g. to set a notification handler before a push can arrive). */
  connect(bearer: string, host?: string, opts?: { query?: string; beforeConnect?: (client: Client) => void }): Promise<Client>;
}

type Api = TestHarness['api'];

/** The owner's helpers, made of `api` calls (the same over HTTP and in process). */
export function ownerHelpers(api: Api): Pick<TestHarness, 'agent' | 'room' | 'join' | 'owner'> {
  return {
    async agent(name, o = {}) {
      const a = await api('POST', '/v1/agents', { name, ...(o.scopes ? { scopes: o.scopes } : {}) }, o.token);
      if (a.status !== 201) throw new Error(`agent create failed: ${JSON.stringify(a.body)}`);
      const c = await api('POST', `/v1/agents/${a.body.plate}/credentials`, { device: 'test' }, o.token);
      if (c.status !== 201) throw new Error(`credential failed: ${JSON.stringify(c.body)}`);
      return { plate: a.body.plate, agent_id: a.body.agent_id, handle: a.body.handle, credential: c.body.credential, credential_id: c.body.credential_id, device_id: c.body.device_id };
    },
    async room(name, token) {
      const r = await api('POST', '/v1/rooms', { name }, token);
      if (r.status !== 201) throw new Error(`room failed: ${JSON.stringify(r.body)}`);
      return r.body.room_id;
    },
    async join(roomId, plate, token) {
      const r = await api('POST', `/v1/rooms/${roomId}/members`, { plate }, token);
      if (r.status !== 201) throw new Error(`join failed: ${JSON.stringify(r.body)}`);
    },
    async owner(name) {
      const r = await api('POST', '/v1/owners', { name });
      if (r.status !== 201) throw new Error(`owner failed: ${JSON.stringify(r.body)}`);
      return { owner_id: r.body.owner.owner_id, token: r.body.token };
    },
  };
}

/** The scratch folders (outside the home) where runs without a cwd of their own work: removed after the core closes. */
export function scratchFolders(core: Core): string[] {
  const plates = core.db.open ? (core.db.prepare('SELECT plate FROM agents').all() as Array<{ plate: string }>) : [];
  return plates.map(({ plate }) => join(scratchBase(), plate));
}

export async function startTestServer(opts: Partial<StartOptions> = {}): Promise<TestServer> {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'agent-rooms-test-'));
  const logs: string[] = [];
  // Each test server's task worktrees beside its own home, removed with it (the default is one folder beside every home).
  const worktreesDir = opts.worktreesDir ?? `${home}-worktrees`;
  const running = await startCore({ home, port: 0, ownerName: 'Ada Owner', log: (l) => logs.push(l), ...opts, worktreesDir });
  const clients: Client[] = [];
  const api = async (method: string, path: string, body?: unknown, token = running.ownerToken) => {
    const res = await fetch(running.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, body: parsed as any, headers: res.headers };
  };
  const ts: TestServer = {
    running,
    home,
    baseUrl: running.baseUrl,
    ownerToken: running.ownerToken,
    api,
    ...ownerHelpers(api),
    async connect(bearer, host, o = {}) {
      const url = new URL(`${running.baseUrl}/mcp${host ? `/${host}` : ''}${o.query ?? ''}`);
      const transport = new StreamableHTTPClientTransport(url, {
        requestInit: bearer ? { headers: { authorization: `Bearer ${bearer}` } } : undefined,
      });
      const client = new Client({ name: 'test', version: '1.0.0' }, { jsonSchemaValidator: sharedValidator });
      o.beforeConnect?.(client);
      await client.connect(transport);
      // The SDK checks each result against its tool's outputSchema once it has read tools/list.
      await client.listTools();
      clients.push(client);
      return client;
    },
    async stop() {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      // Runs without a cwd of their own work in a scratch folder outside the home: remove those too.
      const scratch = scratchFolders(running.core);
      await running.close();
      for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
      if (!opts.home) rmSync(home, { recursive: true, force: true });
      if (!opts.worktreesDir) rmSync(worktreesDir, { recursive: true, force: true });
    },
  };
  return ts;
}

/** Calls a tool and returns its structured result (throws on a protocol error, not a tool error). */
export async function call(client: ToolCaller, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await client.callTool({ name, arguments: args });
  return r;
}

/**
 * A tool's structuredContent when the test does not name its shape. Tests that read a result
 * closely name it: `ok<TaskRecord>(c, 'claim_task', …)`.
 */
export type ToolResult = Record<string, any>;

/** Calls a tool that must succeed and returns structuredContent, as `T`. */
export async function ok<T = ToolResult>(client: ToolCaller, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: unknown };
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent as T;
}

/** Calls a tool that must fail and returns its structured error (the wire shape of shared/errors.ts). */
export async function fails(client: ToolCaller, name: string, args: Record<string, unknown> = {}): Promise<ToolErrorBody> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: unknown };
  if (!r.isError) throw new Error(`${name} unexpectedly succeeded: ${JSON.stringify(r.structuredContent)}`);
  return (r.structuredContent as { error: ToolErrorBody }).error;
}
