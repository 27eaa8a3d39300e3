import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { openaiStandIn, REPLY_PREFIX, type StandIn } from './standins.js';
import { RUNNER_PRESETS } from '../../src-main/core/wakes/presets.js';
import { freshHome, hostInstalled, mentionAndWait, pathWithHosts } from './helpers.js';

const installed = hostInstalled('codex');

/**
 * What a tool profile buys (docs/core.md, "Tool profiles"): the real Codex CLI woken through its
 * shipped preset, once with the MCP URL's `?tools=core` and once with `?tools=full`; the loopback
 * model API records the first request of the wake's turn, whose tool list is the room's listing as
 * the host forwards it. Both sizes are printed (docs/performance.md notes them); core must be smaller.
 */
describe.skipIf(!installed)('host: Codex, first-turn request size per tool profile', () => {
  let s: TestServer;
  let model: StandIn;
  let home: ReturnType<typeof freshHome>;
  const savedPath = process.env.PATH;
  beforeAll(async () => {
    process.env.PATH = pathWithHosts();
    home = freshHome('codex-profiles');
    model = await openaiStandIn();
    mkdirSync(join(home.dir, '.codex'), { recursive: true });
    writeFileSync(
      join(home.dir, '.codex', 'config.toml'),
      ['model = "gpt-standin"', 'model_provider = "standin"', '[model_providers.standin]', 'name = "standin"', `base_url = "${model.url}/v1"`, 'env_key = "OPENAI_API_KEY"', 'wire_api = "responses"', ''].join('\n'),
    );
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 1 } });
  });
  afterAll(async () => {
    await s?.stop();
    await model?.close();
    home?.cleanup();
    process.env.PATH = savedPath;
  });

  it('records the first turn of a wake with core and with full; core is smaller', async () => {
    const sizes: Record<string, { request: number; tools: number }> = {};
    for (const profile of ['core', 'full'] as const) {
      const a = await s.agent(`Codex ${profile}`);
      const room = await s.room(`Codex ${profile} room`);
      await s.join(room, a.plate);
      // The shipped codex exec preset, its MCP URL carrying the profile.
      const preset = RUNNER_PRESETS['codex exec'];
      const args = preset.args.map((x) => x.replace('"{mcp_base_url}"', `"{mcp_base_url}?tools=${profile}"`));
      expect(args.some((x) => x.includes(`?tools=${profile}`))).toBe(true);
      const put = await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: preset.command, args, env: { HOME: home.dir, OPENAI_API_KEY: 'sk-standin-key' }, timeout_ms: 120_000 });
      expect(put.status).toBe(200);
      const { wake, messages } = await mentionAndWait(s, { plate: a.plate, handle: a.handle, room, body: `profile ${profile}` });
      expect(wake).toMatchObject({ status: 'handled' });
      expect(messages.some((x) => x.body === `${REPLY_PREFIX}profile ${profile}`)).toBe(true);
      const first = model.requests.find((r) => JSON.stringify(r.body).includes(wake.wake_id));
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
