import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { connect } from '../../src-main/core/hosts/connect.js';
import { privateTempName, replaceFilePrivate } from '../../src-main/core/util/private-write.js';
import { addHuman, runnerRig, wakesOf } from './helpers.js';
import { waitFor } from '../helpers/core.js';

/**
 * Issue 47, item 7 (docs/security.md "Third round"), the two LOW findings as the red team did them:
 * - `connect` wrote a host's config through `<file>.agent-rooms-<pid>.tmp`, following a link:
 *   a link planted at that name received the bearer credential;
 * - a wake's `usage.model` was runner output stored as printed: a runner env value and another
 *   agent's credential put there were read by another owner of the room.
 */
const skip = process.platform === 'win32' ? 'symbolic links and POSIX modes' : undefined;
const CREDENTIAL_RE = /\bark_[A-Za-z0-9_-]{20,}/;

describe.skipIf(skip)('security: host config writes never follow a planted link (issue 47, item 7)', () => {
  let s: TestServer;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 1 } });
    dir = mkdtempSync(join(tmpdir(), 'ar-sec-tmp-links-'));
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    mkdirSync(join(dir, 'home'));
    for (const cli of ['claude', 'codex', 'gemini']) {
      writeFileSync(join(bin, cli), `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "${cli} 9.9.9"; fi\nexit 0\n`);
      chmodSync(join(bin, cli), 0o755);
    }
    env = { PATH: `${bin}:/usr/bin:/bin`, HOME: join(dir, 'home'), GEMINI_API_KEY: 'k' };
  });
  afterAll(async () => {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a link planted at the old temporary name (and at guessable new ones) of each host's config never receives the credential", async () => {
    const home = env.HOME!;
    const configs = [
      ['cursor', join(home, '.cursor', 'mcp.json')],
      ['gemini', join(home, '.gemini', 'settings.json')],
      ['claude-code', join(home, '.claude.json')],
      ['codex', join(home, '.codex', '.env')],
    ] as const;
    const loot = join(dir, 'loot');
    mkdirSync(loot);
    const traps: string[] = [];
    for (const [host, file] of configs) {
      mkdirSync(join(file, '..'), { recursive: true });
      // The attacker's guesses: the old name for this process (and its neighbours), and plain ones.
      const guesses = [
        `${file}.agent-rooms-${process.pid}.tmp`,
        `${file}.agent-rooms-${process.pid + 1}.tmp`,
        `${file}.tmp`,
        join(file, '..', `.${file.split('/').pop()}.tmp`),
      ];
      for (const [k, g] of guesses.entries()) {
        const target = join(loot, `${host}-${k}`);
        symlinkSync(target, g);
        traps.push(target);
      }
      const lines: string[] = [];
      const code = await connect([host, '--agent', `Trap ${host}`, '--home', s.home], { out: (l) => lines.push(l) }, env);
      expect(code, lines.join('\n')).toBe(0);
      // The config is a real file of its own, 0600, with the credential in it.
      expect(lstatSync(file).isSymbolicLink(), file).toBe(false);
      expect((statSync(file).mode & 0o777).toString(8), file).toBe('600');
      expect(readFileSync(file, 'utf8'), file).toMatch(host === 'codex' ? /ark_/ : CREDENTIAL_RE);
      // No temporary file is left beside it.
      expect(readdirSync(join(file, '..')).filter((n) => n.endsWith('.tmp') && !lstatSync(join(file, '..', n)).isSymbolicLink())).toEqual([]);
    }
    // Before: the link at `<file>.agent-rooms-<pid>.tmp` was written through, and the config itself became that link.
    for (const t of traps) expect(existsSync(t), t).toBe(false);
    expect(readdirSync(loot)).toEqual([]);
  });

  it('the temporary name is random, and one that exists (a link planted there) fails the write instead of being followed', () => {
    const file = join(dir, 'direct.json');
    const a = privateTempName(file);
    const b = privateTempName(file);
    expect(a).not.toBe(b);
    expect(a.length - join(dir, '.direct.json.').length).toBeGreaterThanOrEqual(32);
    replaceFilePrivate(file, '{"token":"ark_first"}\n');
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect(readFileSync(file, 'utf8')).toBe('{"token":"ark_first"}\n');
    // A link at the destination is replaced, not written through.
    const outside = join(dir, 'outside.txt');
    writeFileSync(outside, 'mine');
    rmSync(file);
    symlinkSync(outside, file);
    replaceFilePrivate(file, 'secret');
    expect(readFileSync(outside, 'utf8')).toBe('mine');
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
  });
});

describe.skipIf(skip)('security: usage.model is masked and bounded like the tails (issue 47, item 7)', () => {
  const rig = runnerRig('agent-rooms-sec-usage-model-', 'Bob Usage');
  beforeAll(async () => {
    await rig.s.api('PATCH', `/v1/owners/${rig.bob.owner_id}`, { allow_runners: true });
  });

  it("a runner printing its env value and another agent's credential as the model: no owner reads either, and the name is at most 200 characters", async () => {
    const victim = await rig.s.agent('Usage victim');
    // Bob's runner somehow holds the primary owner's agent credential, and prints it with his own API key as "the model".
    const script = join(rig.dir, 'usage-runner.cjs');
    writeFileSync(
      script,
      `process.stdin.resume();
process.stdin.on('end', () => {
  const model = 'gpt-x ' + 'y'.repeat(185) + ' ' + process.env.BOB_API_KEY + ' ' + ${JSON.stringify(victim.credential)} + ' ' + 'z'.repeat(10000);
  process.stdout.write('working\\n' + JSON.stringify({ usage: { input_tokens: 3, output_tokens: 4, model } }) + '\\n');
});
`,
    );
    const bobKey = 'bob-api-key-7f3c9a1e55';
    const b = await rig.s.agent('Bob usage agent', { token: rig.bob.token });
    expect((await rig.s.api('PUT', `/v1/agents/${b.plate}/runners/codex`, { command: process.execPath, args: [script], cwd: rig.dir, env: { BOB_API_KEY: bobKey } }, rig.bob.token)).status).toBe(200);
    const room = await rig.s.room('Usage room');
    await addHuman(rig.s, room, rig.bob.owner_id);
    await rig.s.join(room, b.plate, rig.bob.token);
    const sent = await rig.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'report usage', mention_targets: [b.handle] }, rig.bob.token);
    expect(sent.status).toBe(201);
    const done = await waitFor(async () => (await wakesOf(rig.s, b.plate, rig.bob.token)).find((w) => w.message_id === sent.body.message_id && w.ended_at), 'the run to end');
    expect(done.usage).toMatchObject({ input_tokens: 3, output_tokens: 4 });

    // The primary owner, admin of the room, reads the room's wake log; Bob reads his agent's.
    const roomLog = (await rig.s.api('GET', `/v1/rooms/${room}/wakes`)).body.wakes as any[];
    const other = roomLog.find((w) => w.wake_id === done.wake_id);
    // Another owner gets no model line at all (wakes/present.ts) or, where one is shown, a masked one.
    expect(other.usage).toMatchObject({ input_tokens: 3, output_tokens: 4 });
    for (const w of [other, done]) {
      const model = w.usage.model as string | null;
      if (w === other && model === null) continue;
      expect(model!.startsWith('gpt-x ')).toBe(true);
      // Before: the model was the runner's text as printed (cut to 200 characters): the key and the credential in clear.
      expect(model).not.toContain(bobKey);
      expect(model).not.toContain(victim.credential);
      expect(model).not.toMatch(CREDENTIAL_RE);
      // Masked before it is cut: a cut at 200 first left the key's first characters shown.
      expect(model).not.toContain(bobKey.slice(0, 6));
      expect(model).toBe(`gpt-x ${'y'.repeat(185)} *** ark_*** ${'z'.repeat(10000)}`.slice(0, 200).trim());
      expect(model!.length).toBeLessThanOrEqual(200);
    }
    expect(JSON.stringify(await rig.s.api('GET', '/v1/usage'))).not.toContain(bobKey);
  });
});
