import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newSecret } from '../../src-main/core/util/ids.js';
import { TranscriptScanner } from '../../src-main/core/wakes/transcript.js';
import { keptText } from '../../src-main/core/wakes/runners.js';
import { maskCredentials } from '../../src-main/core/worktrees/merge.js';
import { maskSecrets as doctorMask } from '../../src-main/core/hosts/connect.js';
import { LOOP_HELD_MAX_MS, probeLoopAndRequest, reportWithRequest, startHealthServer } from '../helpers/loop-probe.js';
import { runnerRig, wakesOf } from './helpers.js';
import { waitFor } from '../helpers/core.js';

/**
 * Issue 47, item 2 (docs/security.md "Third round"): masking in linear time whatever the text.
 * The red team's attack: an agent echoes 64 KiB of `eyJ-eyJ-…` into a runner's JSON-mode answer
 * (up to 4 MiB), and the passport mask froze the server 5.5-11.5 s (256 KiB alone: 158 s). The
 * same attack here with every shape the masks read, at 4 MiB, through the functions the server
 * calls (tails, transcripts, the doctor's lines, git's words) and through a real run; a concurrent
 * GET /healthz is answered while each runs (test/helpers/loop-probe.ts).
 */
const MiB = 1024 * 1024;
const SHAPES: [string, () => string][] = [
  ['eyJ- repeated', () => 'eyJ-'.repeat(MiB)],
  ['JWS-like parts and dots', () => 'eyJaaaaaaaa.'.repeat((4 * MiB) / 12)],
  ['near-miss JWS (parts of 7)', () => 'eyJaaaa.aaaaaaa.aaaaaaa '.repeat((4 * MiB) / 24)],
  ['one base64 run', () => 'A'.repeat(4 * MiB)],
  ['an issued prefix then its alphabet', () => 'ark_' + '-'.repeat(4 * MiB - 4)],
  ['near-miss prefixes', () => 'ark_aaaaaaaaaaaaaaaaaaa '.repeat((4 * MiB) / 24)],
  ['URL schemes that never end', () => 'a.'.repeat(2 * MiB)],
  ['bearer words', () => 'Bearer '.repeat((4 * MiB) / 7)],
  ['key= parameters', () => '?key='.repeat((4 * MiB) / 5)],
];

describe('security: masking is linear whatever the text (issue 47, item 2)', () => {
  let health: Awaited<ReturnType<typeof startHealthServer>>;
  beforeAll(async () => (health = await startHealthServer()));
  afterAll(async () => health.close());

  it('4 MiB of each adversarial shape through every mask the server runs: a concurrent request is answered, the loop never held for long', async () => {
    // What a run masks with: its credential, runner env values, the home's key forms.
    const secrets = [newSecret('ark_'), 'env-value-0123456789', ...Array.from({ length: 40 }, (_, k) => `key-form-${k}-${'Q'.repeat(60)}`)];
    let worst = 0;
    for (const [name, make] of SHAPES) {
      const text = make();
      expect(text.length).toBeGreaterThan(4 * MiB - 64);
      for (const [what, mask] of [
        ['keptText (an answer tail)', () => keptText(text, secrets)],
        ['the transcript (one plain line)', () => new TranscriptScanner('text', secrets).push(text + '\n')],
        ["git's words (worktrees)", () => maskCredentials(text, 'gittoken-123456')],
        // The doctor runs in the CLI's process, not the server's; its mask is the same scanner.
        ["the doctor's lines", () => doctorMask(text)],
      ] as const) {
        const p = await probeLoopAndRequest(async () => mask(), health.url);
        reportWithRequest(`mask 4 MiB "${name}" by ${what}`, p);
        expect(p.request.status).toBe(200);
        expect(p.maxHeldMs, `${name} by ${what}`).toBeLessThan(LOOP_HELD_MAX_MS);
        worst = Math.max(worst, p.request.latencyMs);
      }
    }
    console.log(`[figure] 36 masks of 4 MiB adversarial text: the slowest concurrent GET /healthz answered in ${worst.toFixed(0)} ms`);
  }, 600_000);

  describe('through a real run', () => {
    const rig = runnerRig('agent-rooms-sec-mask-', 'Bob Mask');

    it("a runner's 4 MiB JSON answer and 4 MiB of plain lines of eyJ-eyJ-…: the wake ends, its tail masked, /healthz answered meanwhile", async () => {
      const answer = join(rig.dir, 'answer.jsonl');
      const passport = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhZ3RfMSJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
      // Plain lines first (the transcript reads each), then the JSON answer (the tail is cut from it).
      writeFileSync(
        answer,
        `${'eyJ-'.repeat(16 * 1024)}\n`.repeat(64) + JSON.stringify({ type: 'result', subtype: 'success', result: `${'eyJ-'.repeat(MiB - 256)} ${passport} done`, usage: { input_tokens: 1, output_tokens: 2 } }),
      );
      const a = await rig.s.agent('Echo agent');
      expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: process.execPath, args: [rig.script], cwd: rig.dir, env: { PRINT_FILES: answer } })).status).toBe(200);
      const room = await rig.s.room('Echo room');
      await rig.s.join(room, a.plate);
      const p = await probeLoopAndRequest(async () => {
        const sent = await rig.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'echo it', mention_targets: [a.handle] });
        return waitFor(async () => (await wakesOf(rig.s, a.plate)).find((w) => w.message_id === sent.body.message_id && w.ended_at), 'the run to end', 120_000);
      }, health.url);
      reportWithRequest('a run printing 4 MiB of plain eyJ- lines and a 4 MiB JSON answer of them', p);
      expect(p.request.status).toBe(200);
      expect(p.maxHeldMs).toBeLessThan(LOOP_HELD_MAX_MS);
      const w = p.result;
      expect(w.stdout_tail.endsWith('eyJ*** done')).toBe(true);
      expect(w.stdout_tail).not.toContain(passport);
    }, 300_000);
  });
});
