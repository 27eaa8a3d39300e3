import { describe, it, expect } from 'vitest';
import { waitFor } from '../helpers/core.js';
import { anthropicStandIn } from './standins.js';
import { claudeHostEnv, hostInstalled, hostRigForFile } from './helpers.js';

const installed = hostInstalled('claude');

/**
 * The overnight limits with the real Claude Code CLI (pinned in test/hosts/package.json)
 * through the shipped `claude -p` preset, against a loopback Anthropic Messages API: two
 * agents that answer each other by mention are stopped by the loop guard, and the usage the
 * model reported is what /v1/usage sums.
 *
 * The owner sets the chain limit to 2 (`PUT /v1/settings/wakes`, as the window does), so the loop
 * is held after 3 runs instead of the default's 7: each run is a real `claude -p` (3 to 4 s), and
 * what this file proves with the real CLI (its reply by mention carries the chain, the guard holds
 * it, a release runs one more, usage adds up) is the same at any depth. The default (6, so 7 runs)
 * is checked in process by test/integration/wakes-limits.test.ts.
 */
const MAX_CHAIN = 2;
describe.skipIf(!installed)('host: Claude Code, wakes you can leave running', () => {
  const rig = hostRigForFile('claude-limits', anthropicStandIn);

  const hostEnv = () => claudeHostEnv(rig.home.dir, rig.model.url);

  it(`ping-pong by mention: at most ${MAX_CHAIN + 1} runs (max_chain ${MAX_CHAIN}), then held by the loop guard; a release runs one more; usage adds up`, async () => {
    expect((await rig.s.api('PUT', '/v1/settings/wakes', { max_chain: MAX_CHAIN })).status).toBe(200);
    const room = await rig.s.room('Ping pong');
    const agents = [];
    for (const name of ['Ping', 'Pong']) {
      const a = await rig.s.agent(name);
      await rig.s.join(room, a.plate);
      expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, { preset: 'claude -p', env: hostEnv(), timeout_ms: 120_000 })).status).toBe(200);
      agents.push(a);
    }
    const [a, b] = agents as [(typeof agents)[0], (typeof agents)[0]];
    const all = async () => {
      const ws = [];
      for (const x of [a, b]) ws.push(...((await rig.s.api('GET', `/v1/agents/${x.plate}/wakes`)).body.wakes as any[]));
      return ws;
    };
    const settled = (ws: any[]) => ws.every((w) => w.status !== 'queued' && w.status !== 'running');
    expect((await rig.s.api('POST', `/v1/rooms/${room}/messages`, { body: `ping:${b.handle}`, mention_targets: [a.handle] })).status).toBe(201);

    const held = await waitFor(async () => (await all()).find((w) => w.status === 'held'), 'the loop guard to hold a wake', 400_000);
    await waitFor(async () => settled(await all()), 'the runs to end', 120_000);
    let ws = await all();
    expect(held).toMatchObject({ reason: 'loop_guard', chain_depth: MAX_CHAIN + 1 });
    const ran = ws.filter((w) => w.status === 'handled' || w.status === 'failed');
    expect(ran).toHaveLength(MAX_CHAIN + 1);
    expect(ran.every((w) => w.status === 'handled')).toBe(true);
    expect(ran.map((w) => w.chain_depth).sort()).toEqual(Array.from({ length: MAX_CHAIN + 1 }, (_, d) => d));

    expect((await rig.s.api('POST', `/v1/wakes/${held.wake_id}/release`)).status).toBe(200);
    await waitFor(async () => (await all()).some((w) => w.status === 'held' && w.chain_depth === MAX_CHAIN + 2), 'the next hop to be held again', 120_000);
    await waitFor(async () => settled(await all()), 'the released run to end', 120_000);
    ws = await all();
    expect(ws.filter((w) => w.status === 'handled')).toHaveLength(MAX_CHAIN + 2);

    // Usage: what Claude Code reported per run (read from its stream-json result), summed.
    for (const w of ws.filter((x) => x.status === 'handled')) {
      expect(w.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number), cache_read_tokens: expect.any(Number) });
      expect(w.usage.model).toBeTruthy();
      // The kept output is the model's final answer, not the JSON stream.
      expect(w.stdout_tail).toBe('Done: replied in the room.');
    }
    const u = (await rig.s.api('GET', `/v1/usage?room=${room}`)).body;
    expect(u.totals).toMatchObject({
      wakes: MAX_CHAIN + 2,
      input_tokens: rig.model.reported.input_tokens,
      output_tokens: rig.model.reported.output_tokens,
      cache_read_tokens: rig.model.reported.cache_read_tokens,
    });
    expect(u.by_agent.map((x: any) => x.plate).sort()).toEqual([a.plate, b.plate].sort());
    expect(u.totals.cost_usd).toBeGreaterThan(0);
  }, 900_000);
});
