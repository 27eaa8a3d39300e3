import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { TestHarness, ToolCaller } from './server.js';

export const ERROR_ID_RE = /^err_[0-9A-HJKMNP-TV-Z]{26}$/;
export const PLATE_RE = /^[A-Z]{2,6}-AGT-[0-9A-HJKMNP-TV-Z]{6}$/;

/** A tools/call result as it crosses the wire. */
export interface WireResult {
  isError?: boolean;
  structuredContent: any;
  content: Array<{ type: string; text: string }>;
  _meta?: { pending_mentions?: number };
}

/** Calls a tool and checks what every result carries: _meta.pending_mentions and the same JSON as text. */
export async function callChecked(client: ToolCaller, name: string, args: Record<string, unknown> = {}): Promise<WireResult> {
  const r = (await client.callTool({ name, arguments: args })) as unknown as WireResult;
  expect(r._meta?.pending_mentions, `${name}: _meta.pending_mentions`).toBeTypeOf('number');
  expect(JSON.parse(r.content[0]!.text)).toEqual(r.structuredContent);
  return r;
}

/** A tool call that must fail with `code`; checks the whole public error shape and returns it. */
export async function expectToolError(s: TestHarness, client: ToolCaller, name: string, args: Record<string, unknown>, code: string): Promise<any> {
  const r = await callChecked(client, name, args);
  expect(r.isError, `${name} should fail with ${code}: ${JSON.stringify(r.structuredContent)}`).toBe(true);
  const e = r.structuredContent.error;
  expect(e.code).toBe(code);
  expectErrorShape(s, e);
  return e;
}

export function expectErrorShape(s: TestHarness, e: any): void {
  expect(e.message).toBeTypeOf('string');
  expect(e.message.length).toBeGreaterThan(0);
  expect(e.http_status).toBeTypeOf('number');
  expect(e.error_id).toMatch(ERROR_ID_RE);
  expect(e.retryable).toBeTypeOf('boolean');
  expect(e.doc_url).toBe(`${s.baseUrl}/docs/errors#${e.code}`);
  expect(e.next_action).toBe('diagnose_error');
  // The error id is kept in the evidence store.
  expect(count(s, 'evidence', 'error_id = ?', e.error_id)).toBe(1);
}

/** Counts rows straight from the SQLite file, through a separate connection (in the store itself when it is in memory). */
export function count(s: TestHarness, table: string, where = '1', ...params: unknown[]): number {
  const sql = `SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`;
  if (s.running.core.db.memory) return (s.running.core.db.prepare(sql).get(...params) as { n: number }).n;
  const db = new Database(join(s.home, 'rooms.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(sql).get(...params) as { n: number }).n;
  } finally {
    db.close();
  }
}

/** The MCP session id of a client (the official one, or the in-process one of app.ts). */
export function sessionIdOf(client: { transport?: unknown }): string {
  const id = (client.transport as { sessionId?: string } | undefined)?.sessionId;
  if (!id) throw new Error('client has no MCP session id');
  return id;
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A raw POST on an MCP resource (for what the official client will not send). */
export async function rawMcp(
  s: { baseUrl: string },
  body: unknown,
  headers: Record<string, string> = {},
  opts: { path?: string; method?: string } = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(s.baseUrl + (opts.path ?? '/mcp'), {
    method: opts.method ?? 'POST',
    headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A request through node:http, which lets the test set Host itself. */
export function rawHttp(
  port: number,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers, setHost: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    if (opts.body) req.write(opts.body);
    req.end();
  });
}

/** What is left of T once its falsy values are taken out: what `waitFor` returns. */
export type Truthy<T> = Exclude<T, false | 0 | 0n | '' | null | undefined>;

/**
 * The one polling helper: waits until `fn` returns a truthy value and returns it (a test of
 * eventual behaviour, not of how fast it happens). A throw counts as not yet; the limit only
 * bounds a hung test, it asserts nothing.
 */
export async function waitFor<T>(fn: () => T | Promise<T>, what: string, limitMs = 30_000): Promise<Truthy<T>> {
  const end = Date.now() + limitMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as Truthy<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Temporary folders a test makes (`tmp`) or learns of (`keep`), all removed by `removeAll` in its afterAll. */
export function tempDirs() {
  const dirs: string[] = [];
  return {
    tmp(prefix: string): string {
      const d = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(d);
      return d;
    },
    keep(dir: string): void {
      dirs.push(dir);
    },
    removeAll(): void {
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}
