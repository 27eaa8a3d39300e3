import { describe, it, expect } from 'vitest';
import { openaiStandIn, REPLY_PREFIX } from './standins.js';
import { RUNNER_PRESETS } from '../../src-main/core/wakes/presets.js';
import { hostInstalled, mentionAndWait, hostRigForFile, writeCodexConfig } from './helpers.js';

const installed = hostInstalled('codex');

/**
 * What a tool profile buys (docs/core.md, "Tool profiles"): the real Codex CLI woken through its
 * shipped preset, once with the MCP URL's `?tools=core` and once with `?tools=full`; the loopback
 * model API records the first request of the wake's turn, whose tool list is the room's listing as
 * the host forwards it. Both sizes are printed (docs/performance.md notes them); core must be smaller.
 */
describe.skipIf(!installed)('host: Codex, first-turn request size per tool profile', () => {
  const rig = hostRigForFile('codex-profiles', openaiStandIn, { setup: (r) => writeCodexConfig(r.home.dir, r.model.url) });

  it('records the first turn of a wake with core and with full; core is smaller', async () => {
    const sizes: Record<string, { request: number; tools: number }> = {};
    for (const profile of ['core', 'full'] as const) {
      const a = await rig.s.agent(`Codex ${profile}`);
      const room = await rig.s.room(`Codex ${profile} room`);
      await rig.s.join(room, a.plate);
      // The shipped codex exec preset, its MCP URL carrying the profile.
      const preset = RUNNER_PRESETS['codex exec'];
      const args = preset.args.map((x) => x.replace('"{mcp_base_url}"', `"{mcp_base_url}?tools=${profile}"`));
      expect(args.some((x) => x.includes(`?tools=${profile}`))).toBe(true);
      const put = await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: preset.command, args, env: { HOME: rig.home.dir, OPENAI_API_KEY: 'sk-standin-key' }, timeout_ms: 120_000 });
      expect(put.status).toBe(200);
      const { wake, messages } = await mentionAndWait(rig.s, { plate: a.plate, handle: a.handle, room, body: `profile ${profile}` });
      expect(wake).toMatchObject({ status: 'handled' });
      expect(messages.some((x) => x.body === `${REPLY_PREFIX}profile ${profile}`)).toBe(true);
      const first = rig.model.requests.find((r) => JSON.stringify(r.body).includes(wake.wake_id));
      expect(first, 'the wake reached the model').toBeDefined();
      const tools = (first!.body.tools ?? []) as unknown[];
      sizes[profile] = { request: Buffer.byteLength(JSON.stringify(first!.body)), tools: Buffer.byteLength(JSON.stringify(tools)) };
    }
    console.log(
      `first turn of a wake (Codex, OpenAI Responses request): core ${sizes.core!.request} bytes (tools field ${sizes.core!.tools} bytes), ` +
        `full ${sizes.full!.request} bytes (tools field ${sizes.full!.tools} bytes)`,
    );
    expect(sizes.core!.request).toBeLessThan(sizes.full!.request);
    // Codex nests the MCP server's tools inside its own tool entries: the bytes show the difference, not the count.
    expect(sizes.core!.tools).toBeLessThan(sizes.full!.tools);
  }, 300_000);
});
