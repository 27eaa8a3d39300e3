import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, ok, fails, type TestServer, type TestAgent } from '../helpers/server.js';
import { MCP_HOSTS } from '../../shared/hosts.js';
import { SPEC_TOOLS } from '../../src-main/core/mcp/spec-tools.js';

/**
 * Tool profiles (docs/core.md, "Tool profiles"): `?tools=core|full` on every MCP URL. What a model
 * reads of the listing (each tool's name, title, description and inputSchema as JSON, summed) stays
 * within 12,000 bytes for core and 24,000 for full, on every host resource; tools/list is the same
 * bytes in the same order across sessions and restarts (hosts' prompt caches depend on it).
 */

const BUDGET = { core: 12_000, full: 24_000 } as const;
const BACK_COMPAT = ['accept_task', 'reject_task', 'list_pending_consents', 'ack_mentions'];
const CORE_NEEDS = [
  'send_message', 'read_room', 'check_mentions', 'read_board', 'read_task', 'create_task', 'claim_task', 'renew_lease',
  'release_task', 'set_status', 'complete_task', 'get_room_context', 'read_file', 'write_file', 'reserve_paths',
  'release_paths', 'list_reservations', 'diagnose_error',
];
const ALL_SCOPES = ['READ', 'WRITE', 'UPLOAD', 'DOWNLOAD', 'INVOKE'];
const RESOURCES = ['', ...MCP_HOSTS.map((h) => `/${h}`)];

interface Listed {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
}

/** JSON as Python's json.dumps writes it by default (", " and ": " between items): a counter may use either. */
function spacedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(spacedJson).join(', ')}]`;
  if (v && typeof v === 'object') {
    const items = Object.entries(v).filter(([, x]) => x !== undefined);
    return `{${items.map(([k, x]) => `${JSON.stringify(k)}: ${spacedJson(x)}`).join(', ')}}`;
  }
  return JSON.stringify(v);
}

/** The model-visible bytes of a listing, compact and spaced: each tool's name, title, description and inputSchema. */
function modelBytes(tools: Listed[]): { compact: number; spaced: number } {
  let compact = 0;
  let spaced = 0;
  for (const t of tools) {
    const seen = { name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema };
    compact += Buffer.byteLength(JSON.stringify(seen));
    spaced += Buffer.byteLength(spacedJson(seen));
  }
  return { compact, spaced };
}

/** initialize, initialized, then tools/list on a fresh session, by hand: the raw JSON-RPC response text of tools/list. */
async function rawToolsList(baseUrl: string, resource: string, query: string, credential: string): Promise<{ status: number; text: string }> {
  const url = `${baseUrl}/mcp${resource}${query}`;
  const headers: Record<string, string> = {
    authorization: `Bearer ${credential}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  const initText = await init.text();
  const sid = init.headers.get('mcp-session-id');
  if (!sid) return { status: init.status, text: initText };
  const h = { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
  await (await fetch(url, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
  const list = await fetch(url, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }) });
  const text = await list.text();
  await fetch(url, { method: 'DELETE', headers: h }).catch(() => undefined);
  // Streamable HTTP may answer as one SSE event: its data line is the JSON-RPC response.
  const data = text.split('\n').find((l) => l.startsWith('data: '));
  return { status: list.status, text: data ? data.slice('data: '.length) : text };
}

describe('tool profiles', () => {
  const home = mkdtempSync(join(tmpdir(), 'agent-rooms-profiles-'));
  let s: TestServer;
  let a: TestAgent;
  const before = new Map<string, string>();

  beforeAll(async () => {
    s = await startTestServer({ home, rateLimit: { perSecond: 0, burst: 0 } });
    a = await s.agent('Reader', { scopes: ALL_SCOPES });
  });
  afterAll(async () => {
    await s.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('core and full stay within their model-visible budgets on every host resource', async () => {
    const sizes: string[] = [];
    for (const resource of RESOURCES) {
      for (const profile of ['core', 'full'] as const) {
        const c = await s.connect(a.credential, resource.slice(1) || undefined, { query: `?tools=${profile}` });
        const tools = (await c.listTools()).tools as Listed[];
        const bytes = modelBytes(tools);
        sizes.push(`${resource || '/mcp'} ${profile}: ${tools.length} tools, ${bytes.compact} bytes (${bytes.spaced} with spaces)`);
        expect(bytes.compact, `${resource} ${profile}`).toBeLessThanOrEqual(BUDGET[profile]);
        // Within budget however it is counted: with ", " and ": " between items too.
        expect(bytes.spaced, `${resource} ${profile}, spaced`).toBeLessThanOrEqual(BUDGET[profile]);
        const names = tools.map((t) => t.name);
        if (profile === 'core') {
          for (const n of CORE_NEEDS) expect(names, `core on ${resource} lacks ${n}`).toContain(n);
          for (const n of BACK_COMPAT) expect(names, `core on ${resource} lists ${n}`).not.toContain(n);
        } else {
          // full is the whole specification (assign_task is retired: callable, never listed).
          for (const n of SPEC_TOOLS) if (n !== 'assign_task') expect(names, `full on ${resource} lacks ${n}`).toContain(n);
        }
        await c.close();
      }
    }
    console.log(`tools/list, model-visible bytes:\n  ${sizes.join('\n  ')}`);
  });

  it('no profile is full; core is a strict subset of full in the same order', async () => {
    const plain = JSON.parse((await rawToolsList(s.baseUrl, '', '', a.credential)).text).result.tools as Listed[];
    const full = JSON.parse((await rawToolsList(s.baseUrl, '', '?tools=full', a.credential)).text).result.tools as Listed[];
    const core = JSON.parse((await rawToolsList(s.baseUrl, '', '?tools=core', a.credential)).text).result.tools as Listed[];
    expect(JSON.stringify(plain)).toBe(JSON.stringify(full));
    const fullNames = full.map((t) => t.name);
    const coreNames = core.map((t) => t.name);
    expect(coreNames.length).toBeLessThan(fullNames.length);
    expect(coreNames).toEqual(fullNames.filter((n) => coreNames.includes(n)));
    // The same tool is listed the same way in both profiles.
    for (const t of core) expect(JSON.stringify(t)).toBe(JSON.stringify(full.find((f) => f.name === t.name)));
  });

  it('tools/list is byte-identical across sessions and hosts of a profile', async () => {
    for (const profile of ['core', 'full']) {
      for (const resource of RESOURCES) {
        const one = await rawToolsList(s.baseUrl, resource, `?tools=${profile}`, a.credential);
        const two = await rawToolsList(s.baseUrl, resource, `?tools=${profile}`, a.credential);
        expect(one.status).toBe(200);
        expect(two.text).toBe(one.text);
        before.set(`${profile}${resource}`, one.text);
      }
      expect(before.get(`${profile}/codex`)).toBe(before.get(profile));
    }
  });

  it('tools/list is byte-identical after a restart of the server', async () => {
    expect(before.size).toBe(RESOURCES.length * 2);
    await s.stop();
    s = await startTestServer({ home, rateLimit: { perSecond: 0, burst: 0 } });
    for (const [key, text] of before) {
      const profile = key.startsWith('core') ? 'core' : 'full';
      const resource = key.slice(profile.length);
      const again = await rawToolsList(s.baseUrl, resource, `?tools=${profile}`, a.credential);
      expect(again.text, key).toBe(text);
    }
  });

  it('an unknown profile is refused at initialize with an error_id', async () => {
    const r = await rawToolsList(s.baseUrl, '/codex', '?tools=tiny', a.credential);
    expect(r.status).toBe(400);
    const body = JSON.parse(r.text) as { error: { message: string; data: { code: string; reason: string; error_id: string } } };
    expect(body.error.message).toContain('core, full');
    expect(body.error.data).toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'unknown_tool_profile' });
    expect(body.error.data.error_id).toMatch(/^err_/);
  });

  it('a profile is what is listed: a core session may still call a tool it does not list', async () => {
    const c = await s.connect(a.credential, 'claude-code', { query: '?tools=core' });
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('list_rooms');
    const rooms = await ok<{ rooms: unknown[] }>(c, 'list_rooms');
    expect(Array.isArray(rooms.rooms)).toBe(true);
    await c.close();
  });

  it('a field listed in a narrower form is still accepted whole: set_status done, one board status, a "start-end" range', async () => {
    const c = await s.connect(a.credential, undefined, { query: '?tools=core' });
    const listed = new Map((await c.listTools()).tools.map((t) => [t.name, t.inputSchema as { properties: Record<string, any> }]));
    expect(listed.get('set_status')!.properties.status.enum).toEqual(['todo', 'blocked', 'failed']);
    expect(listed.get('read_board')!.properties.status.type).toBe('array');
    expect(listed.get('read_file')!.properties.range.type).toBe('object');
    expect(JSON.stringify([...listed.values()])).not.toContain('"listed"');

    const room = await s.room('narrow');
    await s.join(room, a.plate);
    const task = await ok<{ task_id: string }>(c, 'create_task', { room, title: 't', definition_of_done: 'd', assignee: a.handle });
    await ok(c, 'claim_task', { task_id: task.task_id });
    // The listing leaves `done` out; the server still answers it with the specification's CONFLICT, not a schema error.
    const done = await fails(c, 'set_status', { task_id: task.task_id, status: 'done' });
    expect(done.code).toBe('CONFLICT');
    expect(done.error_id).toMatch(/^err_/);
    const board = await ok<{ lanes: { tasks: { task_id: string }[] }[] }>(c, 'read_board', { room, status: 'doing' });
    expect(board.lanes.flatMap((l) => l.tasks.map((t) => t.task_id))).toContain(task.task_id);
    await ok(c, 'write_file', { room, path: 'n.txt', content: 'hello' });
    const part = await ok<{ content: string }>(c, 'read_file', { room, path: 'n.txt', range: '1-3' });
    expect(part.content).toBe('ell');
    await c.close();
  });
});
