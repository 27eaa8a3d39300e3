import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestServer, type ApiResponse, type TestAgent, type TestHarness, type TestServer, type ToolCaller } from '../helpers/server.js';
import { openTestApp, type TestApp } from '../helpers/app.js';
import { ERROR_ID_RE, callChecked, count, expectErrorShape, sessionIdOf } from '../helpers/core.js';

/**
 * The in-process app (test/helpers/app.ts) answers as the HTTP server does: the same status, the
 * same error shape, the same tool results, for the same requests on two fresh cores. A test of
 * rules moved to the app keeps its meaning only while this holds.
 */
describe('in-process app and HTTP server agree', () => {
  let s: TestServer;
  let a: TestApp;
  const sides: Array<{ name: string; h: () => TestHarness; agent?: TestAgent; room?: string; client?: ToolCaller }> = [
    { name: 'http', h: () => s },
    { name: 'app', h: () => a },
  ];

  beforeAll(async () => {
    [s, a] = await Promise.all([startTestServer(), openTestApp()]);
    for (const side of sides) {
      const h = side.h();
      side.room = await h.room('Parity');
      side.agent = await h.agent('Worker');
      await h.join(side.room, side.agent.plate);
      side.client = await h.connect(side.agent.credential);
    }
  });
  afterAll(async () => Promise.all([s?.stop(), a?.stop()]));

  /** Both sides' answers to the same request (`{room}` and `{plate}` stand for each side's own). */
  async function both(method: string, path: string, body?: unknown, token?: (h: TestHarness) => string): Promise<ApiResponse[]> {
    return Promise.all(
      sides.map((side) => {
        const h = side.h();
        const p = path.replace('{room}', side.room!).replace('{plate}', side.agent!.plate);
        return h.api(method, p, body, token ? token(h) : undefined);
      }),
    );
  }

  const errorOf = (r: ApiResponse) => ({ status: r.status, code: r.body?.error?.code, reason: r.body?.error?.reason, message: r.body?.error?.message });

  it('a successful read and write: same status, same fields', async () => {
    const [hw, aw] = await both('POST', '/v1/rooms/{room}/messages', { body: 'hello' });
    expect(aw.status).toBe(hw.status);
    expect(Object.keys(aw.body).sort()).toEqual(Object.keys(hw.body).sort());
    const [hr, ar] = await both('GET', '/v1/rooms/{room}');
    expect(ar.status).toBe(200);
    expect(hr.status).toBe(200);
    expect(Object.keys(ar.body).sort()).toEqual(Object.keys(hr.body).sort());
    expect(ar.headers.get('content-type')).toBe(hr.headers.get('content-type'));
    expect(ar.headers.get('cache-control')).toBe(hr.headers.get('cache-control'));
  });

  it.each([
    ['an unknown route', 'GET', '/v1/nowhere', undefined],
    ['a method the path does not take', 'DELETE', '/v1/rooms', undefined],
    ['a body that is not JSON', 'POST', '/v1/rooms', '{not json'],
    ['a body that is not an object', 'POST', '/v1/rooms', '[1,2]'],
    ['a body that breaks the schema', 'POST', '/v1/rooms', { name: 42 }],
    ['a room the caller is not in', 'GET', '/v1/rooms/room_nope', undefined],
  ])('%s: the same error', async (_what, method, path, body) => {
    const [h, app] = await both(method, path, body);
    expect(h.status).toBeGreaterThanOrEqual(400);
    expect(errorOf(app)).toEqual(errorOf(h));
    expect(app.body.error.error_id).toMatch(ERROR_ID_RE);
    expect(Object.keys(app.body.error).sort()).toEqual(Object.keys(h.body.error).sort());
  });

  it('a bad owner token: 401 with the same challenge header on both', async () => {
    const [h, app] = await both('GET', '/v1/rooms', undefined, () => 'not-a-token');
    expect(h.status).toBe(401);
    expect(errorOf(app)).toEqual(errorOf(h));
    expect(app.headers.get('www-authenticate')).toBe(h.headers.get('www-authenticate'));
  });

  it('a successful tool call: same result shape, _meta and text', async () => {
    const [h, app] = await Promise.all(sides.map((side) => callChecked(side.client!, 'send_message', { room: side.room, body: 'from the agent' })));
    expect(app.isError).toBeUndefined();
    expect(h.isError).toBeUndefined();
    expect(Object.keys(app.structuredContent).sort()).toEqual(Object.keys(h.structuredContent).sort());
    expect(Object.keys(app).sort()).toEqual(Object.keys(h).sort());
  });

  it.each([
    ['an unknown tool', 'no_such_tool', {}],
    ['arguments that break the schema', 'send_message', { room: 42 }],
    ['a room the agent is not in', 'read_room', { room: 'room_nope' }],
    ['arguments that are not an object', 'send_message', 'text' as unknown as Record<string, unknown>],
  ])('%s: the same tool error, evidence kept', async (_what, name, args) => {
    const results = await Promise.all(sides.map((side) => callChecked(side.client!, name, args)));
    const [h, app] = results;
    expect(h!.isError).toBe(true);
    expect(app!.isError).toBe(true);
    const { error_id: _h, doc_url: _hd, ...hRest } = h!.structuredContent.error;
    const { error_id: _a, doc_url: _ad, ...aRest } = app!.structuredContent.error;
    expect(aRest).toEqual(hRest);
    sides.forEach((side, i) => expectErrorShape(side.h(), results[i]!.structuredContent.error));
  });

  it('tools/list: the same tools for the same scopes', async () => {
    const clients = sides.map((side) => side.client as unknown as { listTools(): Promise<{ tools: Array<{ name: string }> }> });
    const [h, app] = await Promise.all(clients.map((c) => c.listTools()));
    expect(app!.tools.map((t) => t.name)).toEqual(h!.tools.map((t) => t.name));
  });

  it('a revoked credential: the next tool call is refused on both', async () => {
    const results = await Promise.all(
      sides.map(async (side) => {
        const h = side.h();
        const other = await h.agent('Short lived');
        await h.join(side.room!, other.plate);
        const c = await h.connect(other.credential);
        await callChecked(c, 'whoami');
        const revoke = await h.api('DELETE', `/v1/credentials/${other.credential_id}`);
        expect(revoke.status).toBeLessThan(300);
        return c.callTool({ name: 'whoami', arguments: {} }).then(
          () => 'answered',
          (e: Error) => e.message,
        );
      }),
    );
    for (const r of results) expect(r).not.toBe('answered');
  });

  it('the app: sessions, events and the store are the real ones', async () => {
    const side = sides[1]!;
    expect(a.core.sessions.get(sessionIdOf(side.client as { transport?: unknown }))?.plate).toBe(side.agent!.plate);
    expect(a.events.some((e) => e.type === 'message.created')).toBe(true);
    expect(count(a, 'messages', 'room_id = ?', side.room)).toBeGreaterThan(0);
  });

  it('a route that streams its response answers 501 needs_http in process', async () => {
    const r = await a.api('GET', '/v1/events');
    expect(r.status).toBe(501);
    expect(r.body.error.reason).toBe('needs_http');
  });
});
