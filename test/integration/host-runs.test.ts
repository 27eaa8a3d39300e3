import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/core.js';
import { runnerRig } from './wakes-helpers.js';

/**
 * What a host's run does beyond its exit code (docs/hosts.md "Common to every host"): a run that
 * exits 0 after its host refused the room's tools fails `tools_refused` with the host's words,
 * for each native host's own stream; and what a run leaves behind (a helper in its process
 * group, a daemon that left it) is gone once its wake ended. Real child processes, a real server.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const rig = runnerRig(() => startTestServer({ rateLimit: { perSecond: 0, burst: 1 } }));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('host runs', () => {
  // Each host's stream, as its own CLI's flags name it for an owner's command of that host.
  const cases = [
    { host: 'claude-code', fixture: 'claude-refused.jsonl', args: ['--output-format', 'stream-json'], words: /denied because of a permission rule/ },
    { host: 'codex', fixture: 'codex-refused.jsonl', args: ['exec', '--json'], words: /requires approval, but approval policy is never/ },
    { host: 'gemini', fixture: 'gemini-refused.jsonl', args: ['--output-format', 'stream-json'], words: /denied by policy/ },
  ];
  for (const c of cases) {
    it(`${c.host}: a run that exits 0 after the host refused the room's tools fails tools_refused with the host's words`, async () => {
      const a = await rig.s.agent(`Refused ${c.host}`);
      const room = await rig.s.room(`Refusals ${c.host}`);
      await rig.s.join(room, a.plate);
      const put = await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/${c.host}`, {
        command: process.execPath,
        args: [join(FIXTURES, 'refusing-host.mjs'), join(FIXTURES, 'transcripts', c.fixture), ...c.args],
      });
      expect(put.status).toBe(200);
      await rig.mention(room, a.handle, 'say hello in the room');
      const [w] = await waitFor(async () => {
        const ws = await rig.wakesOf(a.plate);
        return ws.length === 1 && ws[0].status !== 'queued' && ws[0].status !== 'running' && ws;
      }, 'the wake to end');
      expect(w).toMatchObject({ status: 'failed', exit_code: 0 });
      expect(w.reason).toMatch(/^tools_refused: /);
      expect(w.reason).toMatch(c.words);
    });
  }

  it('a run whose stream shows no refusal still reads as before (handled, flagged for no tool call)', async () => {
    const a = await rig.s.agent('Not refused');
    const room = await rig.s.room('No refusal');
    await rig.s.join(room, a.plate);
    await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/gemini`, {
      command: process.execPath,
      args: [join(FIXTURES, 'refusing-host.mjs'), join(FIXTURES, 'transcripts', 'gemini-stream-json.jsonl'), '--output-format', 'stream-json'],
    });
    await rig.mention(room, a.handle, 'hello');
    const [w] = await waitFor(async () => {
      const ws = await rig.wakesOf(a.plate);
      return ws.length === 1 && ws[0].status === 'handled' && ws;
    }, 'the wake to be handled');
    expect(w.reason).not.toMatch(/tools_refused/);
  });

  it('what a run leaves behind, in its process group or out of it, is stopped when the run ends', async () => {
    const a = await rig.s.agent('Leaves helpers');
    const room = await rig.s.room('Leftovers');
    await rig.s.join(room, a.plate);
    const log = join(rig.dir, 'leftovers.json');
    await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: process.execPath, args: [join(FIXTURES, 'leaves-helpers.mjs')], env: { LEFTOVER_LOG: log } });
    await rig.mention(room, a.handle, 'hello');
    await waitFor(async () => {
      const ws = await rig.wakesOf(a.plate);
      return ws.length === 1 && ws[0].status === 'handled';
    }, 'the wake to be handled');
    const pids = JSON.parse(readFileSync(log, 'utf8')) as { in_group: number; daemon: number };
    try {
      // The wake is handled once its end is written; the sweep that follows ends both helpers.
      await waitFor(() => !alive(pids.in_group) && !alive(pids.daemon), 'both helpers to be gone');
    } finally {
      for (const pid of [pids.in_group, pids.daemon]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});
