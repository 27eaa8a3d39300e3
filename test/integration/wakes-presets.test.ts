import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/core.js';

// The presets are spawned by name from PATH; these stand-ins read their command line and
// environment the way the real Claude Code and Codex CLIs do (test/fixtures/fake-hosts).
const FAKE_HOSTS = fileURLToPath(new URL('../fixtures/fake-hosts', import.meta.url));

describe('wakes: runner presets connect back by themselves', () => {
  let s: TestServer;
  let dir: string;
  let logFile: string;
  const saved = { PATH: process.env.PATH, FAKE_HOST_LOG: process.env.FAKE_HOST_LOG };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-rooms-presets-'));
    logFile = join(dir, 'hosts.log');
    process.env.PATH = `${FAKE_HOSTS}:${process.env.PATH}`;
    process.env.FAKE_HOST_LOG = logFile;
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 1 } });
  });
  afterAll(async () => {
    await s.stop();
    process.env.PATH = saved.PATH;
    if (saved.FAKE_HOST_LOG === undefined) delete process.env.FAKE_HOST_LOG;
    else process.env.FAKE_HOST_LOG = saved.FAKE_HOST_LOG;
    rmSync(dir, { recursive: true, force: true });
  });

  const hostLog = () => readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

  for (const [preset, host, bin] of [
    ['claude -p', 'claude-code', 'claude'],
    ['codex exec', 'codex', 'codex'],
  ] as const) {
    it(`${preset}: a mention spawns the host, which reaches the room with no credential in its argv`, async () => {
      const a = await s.agent(`${bin} worker`);
      const room = await s.room(`${bin} room`);
      await s.join(room, a.plate);
      expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/${host}`, { preset })).status).toBe(200);
      const human = await s.api('POST', `/v1/rooms/${room}/messages`, { body: `please review ${bin}`, mention_targets: [a.handle] });
      expect(human.status).toBe(201);
      const reply = await waitFor(async () => {
        const h = await s.api('GET', `/v1/rooms/${room}/messages`);
        return h.body.messages.find((m: any) => m.body === `${bin} got: please review ${bin}`);
      }, `the ${bin} reply`);
      expect(reply.sender.plate).toBe(a.plate);
      const wakes = await waitFor(async () => {
        const w = (await s.api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes as any[];
        return w.every((x) => x.status !== 'queued' && x.status !== 'running') && w;
      }, 'the run to end');
      expect(wakes).toHaveLength(1);
      expect(wakes[0]).toMatchObject({ status: 'handled', target: 'runner' });
      expect(wakes[0].no_tool_call).toBeFalsy();
      const entry = hostLog().find((e) => e.host === bin && !e.error);
      expect(entry.stdin).toBe(`please review ${bin}`);
      expect(JSON.stringify(entry.argv)).not.toMatch(/ark_/);
      // The presets connect with the core tool profile (the URL carries ?tools=core, the credential apart from it).
      if (bin === 'codex') expect(JSON.stringify(entry.argv)).toContain(`/mcp/codex?tools=core`);
      // The envelope reaches the model as the system-prompt addition, naming the room.
      expect(entry.instructions_name_room).toBe(true);
    });
  }
});
