// Issue 26, F6 and F7 and the doctor INFO item, each as an attack.
// F6: `agent-rooms connect` passed the credential on the host CLI's argv (`claude mcp add …
//     --header "Authorization: Bearer ark_…"`), readable by any local user in `ps`; a
//     re-connect left the replaced credential active.
// F7: ~/.cursor/mcp.json (and ~/.gemini/settings.json) were written 0644 with the bearer
//     credential in them, and a non-strict JSON file (comments, trailing commas) lost the
//     user's own servers.
// INFO: doctor printed MCP URLs with `?key=` secrets.
// The host CLIs here are stand-in scripts that log their argv: the attack reads that log as `ps` would.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { connect, doctor } from '../../src-main/core/hosts/connect.js';
import { mcpServerName } from '../../shared/host-connect.js';

const skip = process.platform === 'win32' ? 'POSIX modes and shell stand-ins do not apply on Windows' : undefined;
const CREDENTIAL_RE = /\bark_[A-Za-z0-9_-]{20,}/;

describe.skipIf(skip)('security: credentials of connect and doctor', () => {
  let s: TestServer;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let argvLog: string;
  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 1 } });
    dir = mkdtempSync(join(tmpdir(), 'ar-sec-connect-'));
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    mkdirSync(join(dir, 'home'));
    argvLog = join(dir, 'argv.log');
    // Stand-in host CLIs: each logs its argv (what `ps` shows) and answers --version.
    for (const cli of ['claude', 'codex', 'gemini']) {
      writeFileSync(join(bin, cli), `#!/bin/sh\necho "${cli} $*" >> "${argvLog}"\nif [ "$1" = "--version" ]; then echo "${cli} 9.9.9 $FAKE_VERSION_EXTRA"; fi\nexit 0\n`);
      chmodSync(join(bin, cli), 0o755);
    }
    env = { PATH: `${bin}:/usr/bin:/bin`, HOME: join(dir, 'home'), GEMINI_API_KEY: 'k' };
  });
  afterAll(async () => {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (fn: typeof connect, args: string[]) => {
    const lines: string[] = [];
    const code = await fn([...args, '--home', s.home], { out: (l) => lines.push(l) }, env);
    return { code, out: lines.join('\n') };
  };

  it('F6: no host CLI ever sees the credential on its argv, and connect never prints it', async () => {
    for (const host of ['claude-code', 'codex', 'gemini']) {
      const r = await run(connect, [host, '--agent', `Argv ${host}`]);
      expect(r.code, r.out).toBe(0);
      expect(r.out).not.toMatch(CREDENTIAL_RE);
    }
    const argv = readFileSync(argvLog, 'utf8');
    expect(argv).toContain('codex mcp add');
    expect(argv).not.toMatch(CREDENTIAL_RE);
    expect(argv).not.toMatch(/Bearer/);
    // The credentials are in owner-only files instead.
    for (const f of ['.claude.json', '.gemini/settings.json', '.codex/.env']) {
      const file = join(env.HOME!, f);
      expect(readFileSync(file, 'utf8'), f).toMatch(CREDENTIAL_RE);
      expect((statSync(file).mode & 0o777).toString(8), f).toBe('600');
    }
  });

  it('F6: a re-connect leaves no earlier credential of that host active', async () => {
    const first = await run(connect, ['claude-code', '--agent', 'Twice']);
    expect(first.code).toBe(0);
    const plate = /\(([A-Z0-9]+-AGT-[A-Z0-9]+)\)/.exec(first.out)![1]!;
    const cfg = () => JSON.parse(readFileSync(join(env.HOME!, '.claude.json'), 'utf8')).mcpServers[mcpServerName(plate)].headers.Authorization as string;
    const old = cfg().replace('Bearer ', '');
    expect((await run(connect, ['claude-code', '--agent', 'Twice'])).code).toBe(0);
    // The attacker holding the old credential (say, from an old backup of the config) is refused.
    await expect(s.connect(old, 'claude-code')).rejects.toThrow();
    const creds = (await s.api('GET', `/v1/agents/${plate}/credentials`)).body.credentials as any[];
    expect(creds.filter((c) => !c.revoked)).toHaveLength(1);
    expect(cfg()).not.toBe(`Bearer ${old}`);
  });

  it("F7: Cursor's mcp.json becomes owner-only and a non-strict file keeps the user's own servers", async () => {
    const file = join(env.HOME!, '.cursor', 'mcp.json');
    mkdirSync(join(env.HOME!, '.cursor'), { recursive: true });
    writeFileSync(file, '{\n  // my servers\n  "mcpServers": {\n    "mine": { "url": "http://example.invalid/mcp", },\n  },\n}\n', { mode: 0o644 });
    chmodSync(file, 0o644);
    const r = await run(connect, ['cursor', '--agent', 'Cursor user']);
    expect(r.code, r.out).toBe(0);
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    const cfg = JSON.parse(readFileSync(file, 'utf8'));
    expect(cfg.mcpServers.mine).toEqual({ url: 'http://example.invalid/mcp' });
    expect(Object.keys(cfg.mcpServers).some((k) => k.startsWith('agent-rooms-'))).toBe(true);
    // The original with its comments is kept, privately.
    expect((statSync(`${file}.before-agent-rooms`).mode & 0o777).toString(8)).toBe('600');
    expect(r.out).toMatch(/will not wake on a mention: cursor-agent is not on PATH/);
  });

  it('F7: a settings file that is not JSON at all is refused, never replaced', async () => {
    const file = join(env.HOME!, '.gemini', 'settings.json');
    const broken = '{ "mcpServers": { "mine": { "httpUrl": "http://x" } '; // cut off
    writeFileSync(file, broken);
    await expect(run(connect, ['gemini', '--agent', 'Gemini broken'])).rejects.toThrow(/not a JSON object.*was not changed/);
    expect(readFileSync(file, 'utf8')).toBe(broken);
  });

  it('INFO: doctor never prints a ?key= secret or a bearer credential, even when a command prints one', async () => {
    const a = await s.agent('Leaky version');
    // A runner whose --version output carries an MCP URL with the credential (as a wrapper script might).
    const put = await s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, {
      preset: 'claude -p',
      command: join(dir, 'bin', 'claude'),
      env: { FAKE_VERSION_EXTRA: `http://127.0.0.1:1/mcp?key=${a.credential} Authorization: Bearer ${a.credential}` },
    });
    expect(put.status).toBe(200);
    const r = await run(doctor, ['--agent', a.plate]);
    expect(r.out).toMatch(/runner claude-code: .*claude 9\.9\.9/);
    expect(r.out).not.toContain(a.credential);
    expect(r.out).not.toMatch(CREDENTIAL_RE);
    expect(r.out).not.toMatch(/[?&]key=(?!\*\*\*)/);
  });
});
