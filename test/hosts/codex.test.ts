import { describe, it, expect } from 'vitest';
import { openaiStandIn, REPLY_PREFIX } from './standins.js';
import { mcpServerName } from '../../shared/host-connect.js';
import { hostInstalled, mentionAndWait, hostRigForFile, writeCodexConfig } from './helpers.js';

const installed = hostInstalled('codex');

/** Codex CLI 0.169 (pinned), against a loopback OpenAI Responses API, under its default approval settings. */
describe.skipIf(!installed)('host: Codex (real CLI)', () => {
  const rig = hostRigForFile('codex', openaiStandIn, { setup: (r) => writeCodexConfig(r.home.dir, r.model.url) });

  const hostEnv = () => ({ HOME: rig.home.dir, OPENAI_API_KEY: 'sk-standin-key' });

  it('a mention through the shipped codex exec preset ends handled, with the tool call in the room', async () => {
    const a = await rig.s.agent('Codex worker');
    const room = await rig.s.room('Codex room');
    await rig.s.join(room, a.plate);
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { preset: 'codex exec', env: hostEnv(), timeout_ms: 120_000 })).status).toBe(200);
    const { wake, messages } = await mentionAndWait(rig.s, { plate: a.plate, handle: a.handle, room, body: 'run the checks' });
    expect(wake).toMatchObject({ status: 'handled', target: 'runner', host: 'codex' });
    expect(wake.tool_calls).toBeGreaterThanOrEqual(1);
    expect(messages.find((x) => x.body === `${REPLY_PREFIX}run the checks`)?.sender.plate).toBe(a.plate);
    // Codex ran under its default approvals (the stderr header says "approval: never" and the
    // room's tools still ran: approval is set to "approve" for that one server only).
    expect(rig.model.toolCalls.map((c) => c.name)).toContain(`mcp__${mcpServerName(a.plate).replace(/-/g, '_')}send_message`);
    // The envelope reached the model as developer instructions; the content stayed verbatim.
    const main = JSON.stringify(rig.model.requests.find((r) => JSON.stringify(r.body).includes(wake.wake_id))!.body);
    expect(main).toContain(room);
    expect(main).toContain('run the checks');
    // `codex exec --json`: the tokens of its turns are the wake's usage, as the model reported them.
    expect(wake.usage).toEqual({
      input_tokens: rig.model.reported.input_tokens,
      output_tokens: rig.model.reported.output_tokens,
      cache_read_tokens: rig.model.reported.cache_read_tokens,
      cost_usd: null,
      model: null,
    });
    expect(wake.stdout_tail).toBe('Done: replied in the room.');
  }, 180_000);
});
