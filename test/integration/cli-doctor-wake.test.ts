import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliArgs } from '../helpers/cli-bundle.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `agent-rooms …` with the run's CLI bundle, in a child process (asynchronous: the server runs in this process). */
function agentRooms(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliArgs(), ...args], { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A runner that answers its wake as an agent does: it records the envelope, then calls
 * send_message in the envelope's room over the MCP URL it was given (Streamable HTTP, by hand).
 */
function answeringRunner(dir: string): string {
  const file = join(dir, 'answer.mjs');
  writeFileSync(
    file,
    `import { writeFileSync } from 'node:fs';
const wake = JSON.parse(process.env.AGENT_ROOMS_WAKE);
writeFileSync(process.env.ENVELOPE_FILE, JSON.stringify(wake));
const url = process.env.AGENT_ROOMS_MCP_URL;
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const post = async (body, session) => {
  const r = await fetch(url, { method: 'POST', headers: { ...headers, ...(session ? { 'mcp-session-id': session } : {}) }, body: JSON.stringify(body) });
  await r.text();
  return r.headers.get('mcp-session-id') ?? session;
};
const session = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'answer', version: '1' } } });
await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'send_message', arguments: { room: wake.room, body: 'got it' } } }, session);
`,
  );
  return file;
}

/**
 * \`agent-rooms doctor --wake NAME\` with the real CLI (docs/hosts.md "agent-rooms doctor"): the test
 * mention goes to the owner's own Test wakes room, found by the server by its owner. Before,
 * the CLI took the first room named "agent-rooms doctor" among yours: another owner's room of
 * that name, which she had added you to, got your agent and its wake (issue 47, item 6).
 */
describe('agent-rooms doctor --wake (the CLI bundle)', () => {
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 1 } });
    dir = mkdtempSync(join(tmpdir(), 'ar-doctor-wake-'));
  });
  afterAll(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("wakes the agent in the owner's Test wakes room, not in another owner's room named \"agent-rooms doctor\"", async () => {
    const eve = await s.owner('Eve Other');
    const me = (await s.api('GET', '/v1/me')).body.owner_id as string;
    const trap = await s.room('agent-rooms doctor', eve.token);
    await s.api('POST', `/v1/rooms/${trap}/members`, { owner_id: me, role: 'admin' }, eve.token);
    // Ada accepts the invitation (a room of a teammate): the room is hers to see, named as Eve chose.
    expect((await s.api('POST', `/v1/rooms/${trap}/invitation/accept`, {})).status).toBeLessThan(300);
    expect(((await s.api('GET', '/v1/rooms')).body.rooms as Array<{ name: string }>).map((r) => r.name)).toEqual(['agent-rooms doctor']);
    const a = await s.agent('Checker');
    const envelope = join(dir, 'envelope.json');
    const put = await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: process.execPath, args: [answeringRunner(dir)], env: { ENVELOPE_FILE: envelope } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    const r = await agentRooms(['doctor', '--wake', a.plate, '--timeout', '60', '--home', s.home]);
    expect(r.stdout).toMatch(/sent a test mention to .* in your "Test wakes" room/);
    expect(r.stdout).toMatch(/ok {3}wake .*: handled by runner in [\d.]+ s with 1 tool call\(s\)/);
    expect(r.code, r.stdout + r.stderr).toBe(0);

    const test = (await s.api('GET', '/v1/test-wakes')).body as { room_id: string; wakes: Array<{ room: string; status: string; plate: string }> };
    expect(test.room_id).not.toBe(trap);
    expect(JSON.parse(readFileSync(envelope, 'utf8')).room).toBe(test.room_id);
    expect(test.wakes[0]).toMatchObject({ plate: a.plate, status: 'handled', room: test.room_id });
    // Eve's room: no agent of Ada's, no wake, no message.
    expect((await s.api('GET', `/v1/rooms/${trap}/members`, undefined, eve.token)).body.agents).toEqual([]);
    expect((await s.api('GET', `/v1/rooms/${trap}/wakes`, undefined, eve.token)).body.wakes).toEqual([]);
    expect((await s.api('GET', `/v1/rooms/${trap}/messages`, undefined, eve.token)).body.messages).toEqual([]);
    // The agent's answer landed in the test room, which is not in the room list.
    const msgs = (await s.api('GET', `/v1/rooms/${test.room_id}/messages`)).body.messages as Array<{ body: string; sender: { kind: string } }>;
    expect(msgs.map((m) => `${m.sender.kind}:${m.body.slice(0, 18)}`)).toEqual(['human:agent-rooms doctor', 'agent:got it']);
    expect(((await s.api('GET', '/v1/rooms')).body.rooms as Array<{ room_id: string }>).map((x) => x.room_id)).not.toContain(test.room_id);

    // A second run reuses the same test room.
    const again = await agentRooms(['doctor', '--wake', a.plate, '--timeout', '60', '--home', s.home]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect((await s.api('GET', '/v1/test-wakes')).body.room_id).toBe(test.room_id);
  }, 150_000);
});
