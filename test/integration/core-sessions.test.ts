import { describe, it, expect, afterEach, vi } from 'vitest';
import { Server as HttpServer } from 'node:http';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, ok, type TestServer } from '../helpers/server.js';
import { requirePorts, type CorePorts } from '../../src-main/core/core.js';
import { CAPABILITY_PORTS } from '../../src-main/core/capabilities.js';
import { startCore } from '../../src-main/core/start.js';
import { activeRepeats } from '../../src-main/core/util/repeat.js';
import { dispatcherOf } from '../../src-main/core/wakes/dispatcher.js';
import type { EventEmitter } from 'node:events';
import { callChecked, count, expectToolError, INITIALIZE, rawMcp, sessionIdOf, waitFor } from '../helpers/core.js';

const servers: TestServer[] = [];
async function server(opts: Parameters<typeof startTestServer>[0] = {}) {
  const s = await startTestServer(opts);
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const whoamiCall = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } };

describe('MCP sessions', () => {
  it('DELETE ends a session: the old id then gets 404', async () => {
    const s = await server();
    const a = await s.agent('Deleter');
    const c = await s.connect(a.credential);
    const sid = sessionIdOf(c);
    expect(s.running.core.sessions.get(sid)).toBeDefined();
    await (c.transport as StreamableHTTPClientTransport).terminateSession();
    expect(s.running.core.sessions.get(sid)).toBeUndefined();
    const r = await rawMcp(s, whoamiCall, { authorization: `Bearer ${a.credential}`, 'mcp-session-id': sid });
    expect(r.status).toBe(404);
  });

  it('the idle sweep closes idle sessions; their ids then get 404; a session holding a GET stream is live', async () => {
    const s = await server({ sessionIdleMs: 200 });
    const { sessions } = s.running.core;
    const a = await s.agent('Idler');
    const auth = { authorization: `Bearer ${a.credential}` };
    const closed = new Set<string>();
    sessions.onChange((x, ev) => {
      if (ev === 'close') closed.add(x.id);
    });

    // A pull client without a GET stream: swept once idle.
    const init = await rawMcp(s, INITIALIZE, auth);
    const rawSid = init.headers.get('mcp-session-id')!;
    expect(sessions.get(rawSid)).toBeDefined();

    // The official client opens a GET stream (it can receive pushes): it is a live instance, not idle.
    const c = await s.connect(a.credential);
    const sid = sessionIdOf(c);
    await ok(c, 'whoami');
    await waitFor(() => (sessions.get(sid)?.getStreams ?? 0) > 0, 'the client to open its GET stream');

    await waitFor(() => closed.has(rawSid), 'the sweep to close the idle session');
    expect((await rawMcp(s, whoamiCall, { ...auth, 'mcp-session-id': rawSid })).status).toBe(404);
    expect(await sessions.sweep(200, Date.now() + 60_000)).toBe(0);
    expect(sessions.get(sid)).toBeDefined();

    // Once the client goes away (its stream closes), its session is idle and swept too.
    await c.close();
    await waitFor(() => closed.has(sid), 'the sweep to close the abandoned session');
    expect(sessions.size).toBe(0);
    expect((await rawMcp(s, whoamiCall, { ...auth, 'mcp-session-id': sid })).status).toBe(404);
    // A fresh session works.
    expect((await ok(await s.connect(a.credential), 'whoami')).plate).toBe(a.plate);
  });

  it('an unknown session id gets 404; a non-initialize POST without a session gets 400 and creates none', async () => {
    const s = await server();
    const a = await s.agent('Raw');
    const auth = { authorization: `Bearer ${a.credential}` };
    expect((await rawMcp(s, whoamiCall, { ...auth, 'mcp-session-id': 'f00dfeed-0000-4000-8000-000000000000' })).status).toBe(404);
    const before = s.running.core.sessions.size;
    const r = await rawMcp(s, whoamiCall, auth);
    expect(r.status).toBe(400);
    expect(s.running.core.sessions.size).toBe(before);
    // A GET without a session is no session either.
    expect((await rawMcp(s, undefined, auth, { method: 'GET' })).status).toBe(400);
    expect(s.running.core.sessions.size).toBe(before);
    // initialize does create one, bound to the resource it was made on.
    const init = await rawMcp(s, INITIALIZE, auth);
    expect(init.status).toBe(200);
    const sid = init.headers.get('mcp-session-id')!;
    expect(s.running.core.sessions.size).toBe(before + 1);
    expect((await rawMcp(s, whoamiCall, { ...auth, 'mcp-session-id': sid }, { path: '/mcp/codex' })).status).toBe(404);
    expect((await rawMcp(s, undefined, auth, { path: '/mcp/unknown-host' })).status).toBe(404);
  });
});

describe('rate limit', () => {
  it('the 6th rapid call is RATE_LIMITED (retryable, retry_after_ms); another plate is unaffected', async () => {
    // One token back every 5 s: the six calls are counted, not timed (on a busy machine five calls
    // could take past the 200 ms a token takes to come back at 5 a second).
    const s = await server({ rateLimit: { perSecond: 0.2, burst: 5 } });
    const a = await s.agent('Busy');
    const b = await s.agent('Calm');
    const ca = await s.connect(a.credential);
    const cb = await s.connect(b.credential);
    for (let i = 0; i < 5; i++) await ok(ca, 'whoami');
    const e = await expectToolError(s, ca, 'whoami', {}, 'RATE_LIMITED');
    expect(e.retryable).toBe(true);
    expect(e.http_status).toBe(429);
    expect(e.retry_after_ms).toBeGreaterThan(0);
    expect((await ok(cb, 'whoami')).plate).toBe(b.plate);
    // Waiting retry_after_ms is enough for one more call.
    await new Promise((r) => setTimeout(r, e.retry_after_ms));
    await ok(ca, 'whoami');
  });
});

describe('idempotency', () => {
  it('20 concurrent send_message calls with one key leave one message; other arguments are a CONFLICT; keys are per room', async () => {
    const s = await server();
    const a = await s.agent('Retrier');
    const bob = await s.agent('Bob');
    const room = await s.room('Idem');
    const room2 = await s.room('Idem 2');
    for (const r of [room, room2]) {
      await s.join(r, a.plate);
      await s.join(r, bob.plate);
    }
    const clients: Client[] = [];
    for (let i = 0; i < 4; i++) clients.push(await s.connect(a.credential));
    const args = { room, body: 'exactly once', mention_targets: [bob.handle], idempotency_key: 'key-1' };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => ok(clients[i % 4]!, 'send_message', args)));
    expect(new Set(results.map((r) => r.message_id)).size).toBe(1);
    expect(count(s, 'messages', 'room_id = ?', room)).toBe(1);
    expect(count(s, 'mentions', 'plate = ?', bob.plate)).toBe(1);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);

    const e = await expectToolError(s, clients[0]!, 'send_message', { ...args, body: 'something else' }, 'CONFLICT');
    expect(e.reason).toBe('idempotency_key_reused');
    expect(count(s, 'messages', 'room_id = ?', room)).toBe(1);

    const other = await ok(clients[0]!, 'send_message', { ...args, room: room2 });
    expect(other.message_id).not.toBe(results[0].message_id);
    expect(count(s, 'messages', 'room_id = ?', room2)).toBe(1);

    // Another sender's key of the same name does not alias either.
    const byBob = await ok(await s.connect(bob.credential), 'send_message', { room, body: 'exactly once', idempotency_key: 'key-1' });
    expect(count(s, 'messages', 'id = ? AND sender_plate = ?', byBob.message_id, bob.plate)).toBe(1);
    expect(count(s, 'messages', 'room_id = ?', room)).toBe(2);
  });
});

describe('restart', () => {
  it('messages, inbox items and credentials survive a restart on the same home', async () => {
    const home = mkdtempSync(join(tmpdir(), 'ar-restart-'));
    try {
      const s1 = await startTestServer({ home });
      const a = await s1.agent('Keeper');
      const b = await s1.agent('Reader');
      const room = await s1.room('Durable');
      await s1.join(room, a.plate);
      await s1.join(room, b.plate);
      const sent = await ok(await s1.connect(a.credential), 'send_message', { room, body: 'still here', mention_targets: [b.handle] });
      const token = s1.ownerToken;
      await s1.stop();

      const s2 = await startTestServer({ home });
      servers.push(s2);
      expect(s2.ownerToken).toBe(token);
      const cb = await s2.connect(b.credential);
      const h = await ok(cb, 'read_room', { room });
      expect(h.messages.map((m: any) => [m.message_id, m.body])).toEqual([[sent.message_id, 'still here']]);
      const inbox = await callChecked(cb, 'check_mentions', {});
      expect(inbox.structuredContent.items.map((i: any) => i.message.message_id)).toEqual([sent.message_id]);
      expect(inbox._meta!.pending_mentions).toBe(1);
      // seq keeps growing after the restart.
      expect((await ok(await s2.connect(a.credential), 'send_message', { room, body: 'after' })).seq).toBe(2);
      expect((await s2.api('GET', '/v1/agents')).body.agents.map((x: any) => x.plate).sort()).toEqual([a.plate, b.plate].sort());
    } finally {
      await Promise.all(servers.splice(0).map((s) => s.stop()));
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('storage', () => {
  it('the WAL is checkpointed in the background, and a clean stop leaves no WAL behind', async () => {
    const home = mkdtempSync(join(tmpdir(), 'ar-wal-'));
    try {
      const s = await startTestServer({ home });
      const a = await s.agent('Writer');
      const room = await s.room('Wal');
      await s.join(room, a.plate);
      const c = await s.connect(a.credential);
      const marker = `checkpoint-marker-${Date.now()}`;
      await ok(c, 'send_message', { room, body: marker });
      // Far below the automatic threshold: only the background checkpointer copies it into rooms.db.
      await waitFor(() => readFileSync(join(home, 'rooms.db')).includes(marker), 'the message to reach rooms.db');
      await s.stop();
      expect(existsSync(join(home, 'rooms.db-wal'))).toBe(false);
      const again = await startTestServer({ home });
      servers.push(again);
      expect((await ok(await again.connect(a.credential), 'read_room', { room })).messages.map((m: any) => m.body)).toEqual([marker]);
    } finally {
      await Promise.all(servers.splice(0).map((x) => x.stop()));
      rmSync(home, { recursive: true, force: true });
    }
  });
});

/** Every path under the home with its mode, symbolic links left out. */
function modes(home: string): Array<[string, number, boolean]> {
  const out: Array<[string, number, boolean]> = [];
  const walk = (p: string, rel: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    out.push([rel, st.mode & 0o777, st.isDirectory()]);
    if (st.isDirectory()) for (const n of readdirSync(p)) walk(join(p, n), rel === '.' ? n : `${rel}/${n}`);
  };
  walk(home, '.');
  return out;
}

function expectPrivate(home: string) {
  const wrong = modes(home).filter(([, mode, dir]) => mode !== (dir ? 0o700 : 0o600));
  expect(wrong.map(([p, m]) => `${p} ${m.toString(8)}`)).toEqual([]);
}

const posixModes = process.platform === 'win32' ? 'POSIX modes do not apply on Windows' : undefined;

// What the server's start does to its home (docs/architecture.md "Ports", docs/security.md item 11):
// the rules of a running core (runner env sealed at rest, ports named) are tested in process
// (test/security/11-home-modes.test.ts, test/unit/core-ports.test.ts).
describe('the home at start', () => {
  const homes: string[] = [];
  const newHome = () => {
    const parent = mkdtempSync(join(tmpdir(), 'agent-rooms-modes-'));
    homes.push(parent);
    return join(parent, 'home');
  };
  afterEach(async () => {
    // This hook runs before the file's own: the servers stop before their homes go.
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
  });

  it('startCore refuses a core without a port before it touches the home', async () => {
    const home = mkdtempSync(join(tmpdir(), 'ar-ports-'));
    homes.push(home);
    const ports = { ...CAPABILITY_PORTS } as Record<string, unknown>;
    delete ports.agentActed;
    expect(() => requirePorts(ports as unknown as CorePorts)).toThrow(/agentActed/);
    await expect(startCore({ home, port: 0, log: () => {}, ports: ports as unknown as CorePorts })).rejects.toThrow(/the core cannot start: missing port\(s\) agentActed/);
    expect(readdirSync(home)).toEqual([]);
  });

  it("a stopped server leaves no background loop or listener of its own: its close ran the capabilities' stop steps", async () => {
    const s = await startTestServer();
    const { core } = s.running;
    // The starters run once the home is known sound; a small home is checked before listening.
    expect(activeRepeats(core)).toBeGreaterThan(0);
    expect(dispatcherOf(core)).toBeDefined();
    const listeners = (core.sessions as unknown as { listeners: unknown[] }).listeners;
    expect(listeners.length).toBeGreaterThan(0);
    await s.stop();
    expect(activeRepeats(core)).toBe(0);
    expect((core.bus as unknown as { emitter: EventEmitter }).emitter.listenerCount('event')).toBe(0);
    expect(listeners).toEqual([]);
  });

  it('a stop closes open streams at once (the UI event stream, an MCP GET stream): only requests in flight get the grace', async () => {
    const s = await startTestServer();
    const a = await s.agent('Streamer');
    // An MCP GET stream of a session nobody closes, and the window's event stream.
    const init = await rawMcp(s.running, INITIALIZE, { authorization: `Bearer ${a.credential}` });
    const sid = init.headers.get('mcp-session-id')!;
    expect(sid).toBeTruthy();
    const mcpStream = await fetch(s.running.mcpUrl, { headers: { authorization: `Bearer ${a.credential}`, 'mcp-session-id': sid, accept: 'text/event-stream' } });
    expect(mcpStream.status).toBe(200);
    const events = await fetch(`${s.running.baseUrl}/v1/events`, { headers: { authorization: `Bearer ${s.running.ownerToken}` } });
    expect(events.status).toBe(200);
    const order: string[] = [];
    // The grace ends with closeAllConnections; a stop that waited for it resolves after that call. Only
    // this server's call counts: the grace timers of servers stopped by earlier tests may still fire.
    const ours = new Set<HttpServer>();
    const realClose = HttpServer.prototype.close;
    const closeSpy = vi.spyOn(HttpServer.prototype, 'close').mockImplementation(function (this: HttpServer, cb?: (err?: Error) => void) {
      const at = this.address();
      if (at && typeof at === 'object' && at.port === s.running.port) ours.add(this);
      return realClose.call(this, cb);
    });
    const real = HttpServer.prototype.closeAllConnections;
    const spy = vi.spyOn(HttpServer.prototype, 'closeAllConnections').mockImplementation(function (this: HttpServer) {
      if (ours.has(this)) order.push('grace over');
      real.call(this);
    });
    try {
      await s.running.close();
      order.push('stopped');
      expect(ours.size, 'the stop closed this server').toBe(1);
      expect(order[0]).toBe('stopped');
      // Both streams were ended by the server, not left to the client.
      for (const r of [mcpStream, events]) await expect(r.text()).rejects.toThrow();
    } finally {
      spy.mockRestore();
      closeSpy.mockRestore();
      await s.stop();
    }
  });

  it.skipIf(!!posixModes)('item 11: a new home is 0700 with every folder 0700 and every file 0600, while the server runs', async () => {
    const home = newHome();
    const s = await server({ home });
    const a = await s.agent('Writer');
    const room = await s.room('Files');
    await s.join(room, a.plate);
    const c = await s.connect(a.credential);
    await c.callTool({ name: 'write_file', arguments: { room, path: 'notes.md', content: 'hello' } });
    expect(existsSync(join(home, 'rooms.db-wal'))).toBe(true);
    expect(existsSync(join(home, 'server.json'))).toBe(true);
    expectPrivate(home);
  });

  it.skipIf(!!posixModes)('item 11: a home left readable by others is repaired at start, with a warning', async () => {
    const home = newHome();
    const first = await startTestServer({ home });
    await first.stop();
    // What a copy, a restore or an older version leaves behind.
    chmodSync(home, 0o755);
    for (const [rel, , dir] of modes(home)) if (rel !== '.') chmodSync(join(home, rel), dir ? 0o755 : 0o644);
    mkdirSync(join(home, 'backups'), { mode: 0o755 });
    writeFileSync(join(home, 'backups', 'old.db'), 'x', { mode: 0o644 });
    chmodSync(join(home, 'backups', 'old.db'), 0o644);
    const logs: string[] = [];
    const s = await server({ home, log: (l) => logs.push(l) });
    expectPrivate(home);
    const warning = logs.find((l) => l.includes('readable by other users'));
    expect(warning).toBeDefined();
    expect(warning).not.toContain(s.ownerToken);
  });
});
