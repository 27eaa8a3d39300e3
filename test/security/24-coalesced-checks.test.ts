import { describe, it, expect, beforeAll } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addHuman, runnerRig, wakesOf } from './helpers.js';
import { waitFor } from '../helpers/core.js';

/**
 * Issue 47, item 3 (docs/security.md "Third round"): a coalesced run used to re-check only its
 * lead wake. A mention queued while its author was trusted reached the model after Trust was
 * turned off (its wake ended `merged`), and merged wakes skipped the loop guard and the budget.
 * Each attack is the red team's: queue behind a busy run, change the rule, let the run start,
 * and read what the runner was given on its stdin (the model's input).
 */
describe('security: every merged wake passes its own start-time checks (issue 47, item 3)', () => {
  const rig = runnerRig('agent-rooms-sec-coalesce-', 'Bob Coalesce');
  beforeAll(async () => {
    await rig.s.api('PATCH', `/v1/owners/${rig.bob.owner_id}`, { allow_runners: true });
  });

  const lines = (file: string): { stdin: string }[] =>
    existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { stdin: string }) : [];

  /** Bob's agent with a coalescing runner that holds its first run until the test releases it. */
  async function busyAgent(name: string, roomName: string) {
    const log = join(rig.dir, `${name}.log`);
    const release = join(rig.dir, `${name}.release`);
    const b = await rig.s.agent(name, { token: rig.bob.token });
    const put = await rig.s.api(
      'PUT',
      `/v1/agents/${b.plate}/runners/codex`,
      { command: process.execPath, args: [rig.script], cwd: rig.dir, coalesce: true, env: { RUN_LOG: log, RUN_RELEASE: release } },
      rig.bob.token,
    );
    expect(put.status).toBe(200);
    const room = await rig.s.room(roomName);
    await addHuman(rig.s, room, rig.bob.owner_id);
    await rig.s.join(room, b.plate, rig.bob.token);
    const say = async (body: string, token?: string) => {
      const r = await rig.s.api('POST', `/v1/rooms/${room}/messages`, { body, mention_targets: [b.handle] }, token);
      expect(r.status).toBe(201);
      return r.body.message_id as string;
    };
    await say('hold the queue', rig.bob.token);
    await waitFor(() => lines(log).some((l) => l.stdin === 'hold the queue'), 'the first run');
    const wakeOf = async (messageId: string) =>
      waitFor(async () => (await wakesOf(rig.s, b.plate, rig.bob.token)).find((x) => x.message_id === messageId), `the wake of ${messageId}`);
    return { b, room, log, release, say, wakeOf };
  }

  it('a mention queued while its author was trusted, merged behind a trusted lead after Trust is off: failed on its own, its text never reaches the model', async () => {
    const t = await busyAgent('Coalesce trust', 'Coalesce trust room');
    expect((await rig.s.api('PUT', `/v1/rooms/${t.room}/consent`, { mode: 'trust_room' }, rig.bob.token)).status).toBe(200);
    // The lead is Bob's own (same owner: no Trust needed); the primary owner's mention queues behind it under Trust.
    const lead = await t.say('bob asks first', rig.bob.token);
    const carried = await t.say('SECRET-PLAN under Trust', undefined);
    expect((await t.wakeOf(carried)).status).toBe('queued');
    expect((await rig.s.api('PUT', `/v1/rooms/${t.room}/consent`, { mode: 'blocked' }, rig.bob.token)).status).toBe(200);
    writeFileSync(t.release, '');

    const ended = await waitFor(async () => {
      const w = await t.wakeOf(carried);
      return w.status !== 'queued' ? w : undefined;
    }, 'the carried wake to end');
    await waitFor(async () => ['handled', 'failed'].includes((await t.wakeOf(lead)).status), 'the lead run to end');
    // Before the fix: status merged, merged_into the lead, and the runner read both bodies.
    expect(ended.status).toBe('failed');
    expect(ended.reason).toMatch(/Trust off/);
    expect(ended.merged_into ?? null).toBeNull();
    expect(ended.started_at).toBeNull();
    expect(lines(t.log).map((l) => l.stdin)).toEqual(['hold the queue', 'bob asks first']);
    expect(readFileSync(t.log, 'utf8')).not.toContain('SECRET-PLAN');
  });

  it('merged wakes past the budget are held on their own (budget), not carried by the lead', async () => {
    const t = await busyAgent('Coalesce budget', 'Coalesce budget room');
    const before = (await rig.s.api('GET', '/v1/settings/wakes')).body;
    // One start so far this hour (the held run); the budget allows one more: the lead's.
    expect((await rig.s.api('PUT', '/v1/settings/wakes', { wake_budget: 2 })).status).toBe(200);
    try {
      const lead = await t.say('lead within budget', rig.bob.token);
      const over = [await t.say('over budget 1', rig.bob.token), await t.say('over budget 2', rig.bob.token)];
      writeFileSync(t.release, '');
      await waitFor(async () => ['handled', 'failed'].includes((await t.wakeOf(lead)).status), 'the lead run to end');
      for (const id of over) {
        const w = await t.wakeOf(id);
        // Before the fix: merged into the lead, past the budget.
        expect(w.status).toBe('held');
        expect(w.reason).toBe('budget');
      }
      expect(lines(t.log).map((l) => l.stdin)).toEqual(['hold the queue', 'lead within budget']);
    } finally {
      await rig.s.api('PUT', '/v1/settings/wakes', { wake_budget: before.wake_budget });
    }
  });

  it('a merged wake deeper than the loop guard is held (loop_guard), not carried by a human-started lead', async () => {
    const t = await busyAgent('Coalesce loop', 'Coalesce loop room');
    // Bob's second agent, itself running a wake, mentions the first: that mention chains one deeper.
    const relay = await rig.s.agent('Coalesce relay', { token: rig.bob.token });
    const relayLog = join(rig.dir, 'relay.log');
    const relayRelease = join(rig.dir, 'relay.release');
    expect(
      (
        await rig.s.api(
          'PUT',
          `/v1/agents/${relay.plate}/runners/codex`,
          { command: process.execPath, args: [rig.script], cwd: rig.dir, env: { RUN_LOG: relayLog, RUN_RELEASE: relayRelease } },
          rig.bob.token,
        )
      ).status,
    ).toBe(200);
    await rig.s.join(t.room, relay.plate, rig.bob.token);
    const before = (await rig.s.api('GET', '/v1/settings/wakes')).body;
    expect((await rig.s.api('PUT', '/v1/settings/wakes', { max_chain: 0 })).status).toBe(200);
    try {
      const lead = await t.say('human lead, depth 0', rig.bob.token);
      await rig.s.api('POST', `/v1/rooms/${t.room}/messages`, { body: 'hold the relay', mention_targets: [relay.handle] }, rig.bob.token);
      await waitFor(() => lines(relayLog).length === 1, 'the relay to run');
      const client = await rig.s.connect(relay.credential);
      const sent = await client.callTool({ name: 'send_message', arguments: { room: t.room, body: 'CHAINED relay text', mention_targets: [t.b.handle] } });
      expect(sent.isError ?? false).toBe(false);
      const chained = await waitFor(
        async () => (await wakesOf(rig.s, t.b.plate, rig.bob.token)).find((x) => x.status === 'queued' && x.chain_depth === 1),
        'the chained wake',
      );
      writeFileSync(t.release, '');
      writeFileSync(relayRelease, '');
      await waitFor(async () => ['handled', 'failed'].includes((await t.wakeOf(lead)).status), 'the lead run to end');
      const w = (await wakesOf(rig.s, t.b.plate, rig.bob.token)).find((x) => x.wake_id === chained.wake_id);
      // Before the fix: merged into the human's lead, past the loop guard.
      expect(w.status).toBe('held');
      expect(w.reason).toBe('loop_guard');
      expect(readFileSync(t.log, 'utf8')).not.toContain('CHAINED');
      await client.close();
    } finally {
      await rig.s.api('PUT', '/v1/settings/wakes', { max_chain: before.max_chain });
    }
  });
});
