import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { geminiStandIn, REPLY_PREFIX } from './standins.js';
import { hostInstalled, mentionAndWait, hostRigForFile } from './helpers.js';

const installed = hostInstalled('gemini');

/** Gemini CLI 0.61 (pinned), against a loopback Gemini API, under its default approval settings. */
describe.skipIf(!installed)('host: Gemini CLI (real CLI)', () => {
  const rig = hostRigForFile('gemini', geminiStandIn, {
    // The user's own settings: signed in with an API key; nothing about Agent Rooms, no trusted folders.
    setup: (r) => {
      mkdirSync(join(r.home.dir, '.gemini'), { recursive: true });
      writeFileSync(join(r.home.dir, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
    },
  });

  const hostEnv = () => ({ HOME: rig.home.dir, GEMINI_API_KEY: 'standin-gemini-key', GOOGLE_GEMINI_BASE_URL: rig.model.url });

  it('a mention through the shipped gemini -p preset ends handled, with the tool call in the room', async () => {
    const a = await rig.s.agent('Gemini worker');
    const room = await rig.s.room('Gemini room');
    await rig.s.join(room, a.plate);
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/gemini`, { preset: 'gemini -p', env: hostEnv(), timeout_ms: 120_000 })).status).toBe(200);
    const { wake, messages } = await mentionAndWait(rig.s, { plate: a.plate, handle: a.handle, room, body: 'check the build' });
    expect(wake).toMatchObject({ status: 'handled', target: 'runner', host: 'gemini' });
    expect(wake.tool_calls).toBeGreaterThanOrEqual(1);
    expect(messages.find((x) => x.body === `${REPLY_PREFIX}check the build`)?.sender.plate).toBe(a.plate);
    // The host offered the room's tools (trust: true on that one server entry) and read the
    // envelope from the per-run GEMINI.md; the user's own settings were not touched.
    const decls = rig.model.requests.flatMap((r) => (r.body.tools ?? []).flatMap((t: any) => (t.functionDeclarations ?? []).map((d: any) => d.name as string)));
    for (const tool of ['send_message', 'read_board', 'check_mentions']) expect(decls.some((d) => d.endsWith(tool))).toBe(true);
    expect(JSON.stringify(rig.model.requests.map((r) => r.body.systemInstruction ?? r.body.contents))).toContain(wake.wake_id);
    expect(readFileSync(join(rig.home.dir, '.gemini', 'settings.json'), 'utf8')).not.toContain('agent-rooms');
    // `--output-format json`: the tokens per model are the wake's usage (side requests to other models included).
    expect(wake.usage.input_tokens).toBeGreaterThan(0);
    expect(wake.usage.input_tokens).toBeLessThanOrEqual(rig.model.reported.input_tokens);
    expect(wake.usage.output_tokens).toBeGreaterThan(0);
    expect(wake.usage.model).toBeTruthy();
    expect(wake.stdout_tail).toBe('Done: replied in the room.');
  }, 180_000);
});
