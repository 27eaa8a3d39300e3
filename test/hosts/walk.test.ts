import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { mcpServerName } from '../../shared/host-connect.js';
import { onPath } from '../../src-main/core/util/which.js';
import { cliArgs } from '../helpers/cli-bundle.js';
import { anthropicStandIn, geminiStandIn, openaiStandIn, REPLY_PREFIX, type StandIn } from './standins.js';
import { freshHome, hostInstalled, mentionAndWait, pathWithHosts, writeCodexConfig } from './helpers.js';
import { RUNNER_PRESETS } from '../../src-main/core/wakes/presets.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const all = ['claude', 'codex', 'gemini'].map(hostInstalled).every(Boolean);
const CREDENTIAL_RE = /\bark_[A-Za-z0-9_-]{20,}/;

/**
 * `agent-rooms ARGS` from source, as a user runs it from their shell (asynchronously): the run's
 * bundle of the CLI (test/helpers/cli-bundle.ts), so a start does not transform the core again.
 */
function agentRooms(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string; argv: string[] }> {
  const argv = [process.execPath, ...cliArgs(), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, argv }));
  });
}

/** The parent of a process, from /proc/<pid>/stat (its fourth field, after the name in parentheses). */
function parentOf(pid: string): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
  } catch {
    return undefined;
  }
}

/**
 * The command line of every process this test started, directly or not (the server's runners,
 * the host CLIs, `agent-rooms connect`), sampled while the walk runs (Linux /proc): a credential
 * on any argv is readable by every local user through `ps`. Other processes of the machine (other
 * test files run at the same time) are not this walk's: they are left out.
 */
function watchArgv(): { stop(): string[] } {
  const seen = new Set<string>();
  const ours = (pid: string) => {
    for (let p: string | undefined = pid, hops = 0; p && p !== '0' && hops < 64; p = parentOf(p), hops++) if (p === String(process.pid)) return true;
    return false;
  };
  const sample = () => {
    let pids: string[] = [];
    try {
      pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
    } catch {
      return;
    }
    for (const pid of pids) {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
        if (CREDENTIAL_RE.test(cmd) && ours(pid)) seen.add(cmd.replace(/ark_[A-Za-z0-9_-]+/g, 'ark_<credential>'));
      } catch {
        // gone already
      }
    }
  };
  const timer = setInterval(sample, 25);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return [...seen];
    },
  };
}

const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

/**
 * The README path (README.md "From clone to a woken agent"): the server runs from a PATH
 * without the host CLIs; `agent-rooms connect` runs from the user's shell, which has them; a
 * human mention then ends handled with a tool call, for each host. `doctor` and
 * `doctor --wake` report good and broken runners; re-connect revokes.
 */
describe.skipIf(!all)('from clone to a woken agent, with the real host CLIs', () => {
  let s: TestServer;
  let home: ReturnType<typeof freshHome>;
  let user: NodeJS.ProcessEnv;
  let room: string;
  const models: StandIn[] = [];
  let argvWatch: ReturnType<typeof watchArgv>;
  const plates: Record<string, string> = {};
  const timings: string[] = [];
  /** The first request of the walk's Codex wake (preset, `?tools=core`), for the profile comparison. */
  let codexCoreTurn: { request: number; tools: number } | undefined;

  beforeAll(async () => {
    home = freshHome('walk');
    const [anthropic, openai, gemini] = await Promise.all([anthropicStandIn(), openaiStandIn(), geminiStandIn()]);
    models.push(anthropic, openai, gemini);
    // The user's own Codex config names its model provider (the stand-in), as a Codex user's does.
    writeCodexConfig(home.dir, openai.url);
    // The user's shell: the CLIs on PATH, their model keys in the environment.
    user = {
      ...process.env,
      HOME: home.dir,
      PATH: pathWithHosts(),
      ANTHROPIC_BASE_URL: anthropic.url,
      ANTHROPIC_API_KEY: 'sk-ant-standin-key',
      OPENAI_API_KEY: 'sk-standin-key',
      GEMINI_API_KEY: 'standin-gemini-key',
      GOOGLE_GEMINI_BASE_URL: gemini.url,
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
    // The server's own environment lacks the CLIs (a desktop app never has the shell's PATH).
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 1 } });
    room = await s.room('Walk room');
    argvWatch = watchArgv();
  });
  afterAll(async () => {
    const leaked = argvWatch?.stop() ?? [];
    await s?.stop();
    for (const m of models) await m.close();
    home?.cleanup();
    if (timings.length) console.log(`mention -> first tool call: ${timings.join(', ')}`);
    expect(leaked, 'a credential was on some process argv').toEqual([]);
  });

  it('the server cannot find the host CLIs on its own PATH', () => {
    for (const cli of ['claude', 'codex', 'gemini']) expect(onPath(cli, process.env), cli).toBeUndefined();
    for (const cli of ['claude', 'codex', 'gemini']) expect(onPath(cli, user), cli).toBeTruthy();
  });

  const cases = [
    { host: 'claude-code', cli: 'claude', preset: 'claude -p', agent: 'Walk Claude', extra: ['--env', 'DISABLE_AUTOUPDATER,CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC'] },
    { host: 'codex', cli: 'codex', preset: 'codex exec', agent: 'Walk Codex', extra: [] },
    { host: 'gemini', cli: 'gemini', preset: 'gemini -p', agent: 'Walk Gemini', extra: [] },
  ] as const;

  for (const c of cases) {
    it(`${c.host}: connect leaves the agent wakeable; a human mention ends handled with a tool call`, async () => {
      const r = await agentRooms(['connect', c.host, '--agent', c.agent, '--room', room, '--home', s.home, ...c.extra], user);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.argv.join(' ')).not.toMatch(CREDENTIAL_RE);
      expect(r.stdout + r.stderr).not.toMatch(CREDENTIAL_RE);
      const plate = /\(([A-Z0-9]+-AGT-[A-Z0-9]+)\)/.exec(r.stdout)![1]!;
      plates[c.host] = plate;
      const abs = onPath(c.cli, user)!;
      // One closing line: how it will wake, with the CLI's absolute path.
      expect(r.stdout.trim().split('\n').pop()).toMatch(new RegExp(`will wake by runner: ${abs.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*\\(preset ${c.preset}\\)$`));
      const runner = await s.api('GET', `/v1/agents/${plate}/runners/${c.host}`);
      expect(runner.body).toMatchObject({ preset: c.preset, command: abs });
      expect(Object.keys(runner.body.env)).toContain('HOME');

      // The host config connect wrote: owner-only, the room's server with the core tool profile.
      const server = mcpServerName(plate);
      if (c.host === 'claude-code') {
        const file = join(home.dir, '.claude.json');
        expect(mode(file)).toBe('600');
        expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers[server].url).toBe(`${s.baseUrl}/mcp/claude-code?tools=core`);
      } else if (c.host === 'gemini') {
        const file = join(home.dir, '.gemini', 'settings.json');
        expect(mode(file)).toBe('600');
        const settings = JSON.parse(readFileSync(file, 'utf8'));
        expect(settings.security.auth.selectedType).toBe('gemini-api-key');
        expect(settings.mcpServers[server].httpUrl).toBe(`${s.baseUrl}/mcp/gemini?tools=core`);
      } else {
        const file = join(home.dir, '.codex', '.env');
        expect(mode(file)).toBe('600');
        expect(readFileSync(file, 'utf8')).toMatch(new RegExp(`^AGENT_ROOMS_TOKEN_[A-Z0-9_]+=ark_`, 'm'));
        expect(readFileSync(join(home.dir, '.codex', 'config.toml'), 'utf8')).not.toMatch(CREDENTIAL_RE);
      }

      // A human mention: the response says where it goes; the wake ends handled with a tool call.
      const handle = (await s.api('GET', `/v1/agents/${plate}`)).body.handle as string;
      const model = models[cases.indexOf(c)]!;
      const seen = model.requests.length;
      const geminiSettings = join(home.dir, '.gemini', 'settings.json');
      const settingsBefore = c.host === 'gemini' ? readFileSync(geminiSettings, 'utf8') : '';
      const m = await s.api('POST', `/v1/rooms/${room}/messages`, { body: `walk check ${c.host}`, mention_targets: [handle] });
      expect(m.status).toBe(201);
      expect(m.body.wakes).toEqual([expect.objectContaining({ plate, status: 'queued', target: 'runner' })]);
      const end = Date.now() + 150_000;
      let wake: any;
      while (Date.now() < end) {
        wake = ((await s.api('GET', `/v1/rooms/${room}/wakes?message_id=${m.body.message_id}`)).body.wakes as any[])[0];
        if (wake && (wake.status === 'handled' || wake.status === 'failed')) break;
        await new Promise((res) => setTimeout(res, 100));
      }
      expect(wake, JSON.stringify(wake)).toMatchObject({ status: 'handled', target: 'runner', host: c.host });
      expect(wake.tool_calls).toBeGreaterThanOrEqual(1);
      const reply = ((await s.api('GET', `/v1/rooms/${room}/messages`)).body.messages as any[]).find((x) => x.body === `${REPLY_PREFIX}walk check ${c.host}`);
      expect(reply?.sender.plate).toBe(plate);
      timings.push(`${c.host} ${Date.parse(reply.created_at) - Date.parse(m.body.created_at)} ms`);

      // What the host made of the wake, from the model stand-in's recorded requests: the room's
      // tools offered under the agent's server name, the envelope as a system-prompt addition
      // (never in the content, which stays verbatim), and the usage the model reported.
      const reqs = model.requests.slice(seen);
      const main = reqs.find((r) => JSON.stringify(r.body).includes(wake.wake_id));
      expect(main, 'the envelope reached the model').toBeDefined();
      if (c.host === 'claude-code') {
        for (const tool of ['send_message', 'read_board', 'check_mentions']) expect(reqs.some((r) => JSON.stringify(r.body).includes(`mcp__${server}__${tool}`)), tool).toBe(true);
        expect(JSON.stringify(main!.body.system)).toContain(wake.wake_id);
        expect(JSON.stringify(main!.body.system)).toContain(room);
        expect(JSON.stringify(main!.body.messages)).toContain(`walk check ${c.host}`);
        expect(JSON.stringify(main!.body.messages)).not.toContain(wake.wake_id);
        // claude -p never sends DELETE for its MCP session: the server closed the run's sessions itself.
        const left = ((await s.api('GET', `/v1/rooms/${room}/members`)).body.instances as any[]).filter((i) => i.plate === plate);
        expect(left).toEqual([]);
      } else if (c.host === 'codex') {
        // Under Codex's default approvals the room's tools still ran: "approve" is set for that one server only.
        expect(model.toolCalls.map((x) => x.name)).toContain(`mcp__${server.replace(/-/g, '_')}send_message`);
        expect(JSON.stringify(main!.body)).toContain(room);
        // `codex exec --json`: the tokens of its turns are the wake's usage, as the model reported them.
        expect(wake.usage).toEqual({ input_tokens: model.reported.input_tokens, output_tokens: model.reported.output_tokens, cache_read_tokens: model.reported.cache_read_tokens, cost_usd: null, model: null });
        expect(wake.stdout_tail).toBe('Done: replied in the room.');
        codexCoreTurn = { request: Buffer.byteLength(JSON.stringify(main!.body)), tools: Buffer.byteLength(JSON.stringify(main!.body.tools ?? [])) };
      } else {
        // Gemini under its default approvals: the tools offered (trust: true on that one server
        // entry of the per-run home), the envelope read from the per-run GEMINI.md, and the
        // user's own settings left as connect wrote them.
        const decls = reqs.flatMap((r) => (r.body.tools ?? []).flatMap((t: any) => (t.functionDeclarations ?? []).map((d: any) => d.name as string)));
        for (const tool of ['send_message', 'read_board', 'check_mentions']) expect(decls.some((d) => d.endsWith(tool)), tool).toBe(true);
        expect(readFileSync(geminiSettings, 'utf8')).toBe(settingsBefore);
        // `--output-format json`: the tokens per model are the wake's usage (side requests to other models included).
        expect(wake.usage.input_tokens).toBeGreaterThan(0);
        expect(wake.usage.input_tokens).toBeLessThanOrEqual(model.reported.input_tokens);
        expect(wake.usage.output_tokens).toBeGreaterThan(0);
        expect(wake.usage.model).toBeTruthy();
        expect(wake.stdout_tail).toBe('Done: replied in the room.');
      }
    }, 240_000);
  }

  /**
   * What a tool profile buys (docs/core.md, "Tool profiles"): the first request of a woken Codex's
   * turn carries the room's listing as the host forwards it. The walk's Codex wake above used the
   * preset's `?tools=core`; one more wake with `?tools=full` must be larger. Both sizes are printed
   * (docs/performance.md notes them).
   */
  it('codex: the first turn of a wake is smaller with ?tools=core than with ?tools=full', async () => {
    expect(codexCoreTurn, 'the codex walk ran').toBeDefined();
    const a = await s.agent('Walk Codex full');
    await s.join(room, a.plate);
    const preset = RUNNER_PRESETS['codex exec'];
    const args = preset.args.map((x) => x.replace('"{mcp_base_url}"', '"{mcp_base_url}?tools=full"'));
    expect(args.some((x) => x.includes('?tools=full'))).toBe(true);
    const put = await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: onPath('codex', user), args, env: { HOME: home.dir, OPENAI_API_KEY: 'sk-standin-key' }, timeout_ms: 120_000 });
    expect(put.status).toBe(200);
    const { wake } = await mentionAndWait(s, { plate: a.plate, handle: a.handle, room, body: 'profile full' });
    expect(wake).toMatchObject({ status: 'handled' });
    // The reply may land a moment after the wake reads handled; what the run said is in the failure message.
    const replied = async () =>
      ((await s.api('GET', `/v1/rooms/${room}/messages`)).body.messages as any[]).some((x) => x.body === `${REPLY_PREFIX}profile full` && x.sender.plate === a.plate);
    // What Codex handed back to the model as the tool's result: the first thing to read if no reply came.
    const outputs = models[1]!.requests
      .filter((r) => JSON.stringify(r.body).includes(wake.wake_id))
      .flatMap((r) => (Array.isArray(r.body.input) ? r.body.input : []).filter((i: any) => i?.type === 'function_call_output' || i?.type === 'function_call'));
    await expect
      .poll(replied, { timeout: 30_000, message: `the full-profile Codex replied (wake: ${JSON.stringify({ tool_calls: wake.tool_calls, stdout_tail: wake.stdout_tail, stderr_tail: wake.stderr_tail, tool_items: outputs })})` })
      .toBe(true);
    const first = models[1]!.requests.find((r) => JSON.stringify(r.body).includes(wake.wake_id));
    expect(first, 'the wake reached the model').toBeDefined();
    // The user's config.toml holds the walk agent's server too (connect wrote it): the run turned it off,
    // so the woken agent could act in the room only as itself.
    const roomServers = ((first!.body.tools ?? []) as any[]).map((t) => String(t?.name ?? '')).filter((n) => /agent.rooms/.test(n));
    expect(roomServers).toEqual([`mcp__${mcpServerName(a.plate).replace(/-/g, '_')}`]);
    const full = { request: Buffer.byteLength(JSON.stringify(first!.body)), tools: Buffer.byteLength(JSON.stringify(first!.body.tools ?? [])) };
    const core = codexCoreTurn!;
    console.log(
      `first turn of a wake (Codex, OpenAI Responses request): core ${core.request} bytes (tools field ${core.tools} bytes), full ${full.request} bytes (tools field ${full.tools} bytes)`,
    );
    expect(core.request).toBeLessThan(full.request);
    // Codex nests the MCP server's tools inside its own tool entries: the bytes show the difference, not the count.
    expect(core.tools).toBeLessThan(full.tools);
    await s.api('POST', `/v1/agents/${a.plate}/revoke`);
  }, 240_000);


  it('doctor passes on good runners and fails on a broken one, naming the agent, the cause and the fix', async () => {
    const good = await agentRooms(['doctor', '--home', s.home], user);
    expect(good.code, good.stdout).toBe(0);
    for (const c of cases) {
      expect(good.stdout).toMatch(new RegExp(`^ok +@[^ ]+ \\(${plates[c.host]}\\) runner ${c.host}: /`, 'm'));
      expect(good.stdout).toMatch(new RegExp(`^ok +@[^ ]+ \\(${plates[c.host]}\\): a mention wakes it by runner`, 'm'));
    }
    expect(good.stdout).not.toMatch(CREDENTIAL_RE);
    expect(good.stdout).not.toMatch(/[?&]key=(?!\*\*\*)/);
    // The agents are checked a few at a time, but each one's lines come out together, in the agents' order.
    const listed = ((await s.api('GET', '/v1/agents')).body.agents as Array<{ plate: string; revoked: boolean }>).filter((x) => !x.revoked).map((x) => x.plate);
    const lines = good.stdout.split('\n');
    const blocks = lines.map((l) => listed.find((p) => l.includes(`(${p})`))).filter((p): p is string => p !== undefined);
    expect(blocks.filter((p, i) => i === 0 || blocks[i - 1] !== p)).toEqual(listed);

    // A runner with a bare command: the user's shell finds it, the server does not.
    const broken = await s.agent('Walk broken');
    expect((await s.api('PUT', `/v1/agents/${broken.plate}/runners/codex`, { preset: 'codex exec' })).status).toBe(200);
    const bad = await agentRooms(['doctor', '--home', s.home], user);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(new RegExp(`^fail @[^ ]+ \\(${broken.plate}\\) runner codex: codex is not on the server's PATH.*Fix: agent-rooms connect codex --agent ${broken.plate}`, 'm'));
    expect(bad.stdout).toMatch(new RegExp(`^fail @[^ ]+ \\(${broken.plate}\\): a mention will not wake it`, 'm'));
    // Scoped to a good agent, it passes.
    const scoped = await agentRooms(['doctor', '--agent', plates.codex!, '--home', s.home], user);
    expect(scoped.code, scoped.stdout).toBe(0);
    expect((await s.api('DELETE', `/v1/agents/${broken.plate}/runners/codex`)).status).toBe(200);
    await s.api('POST', `/v1/agents/${broken.plate}/revoke`);
  }, 180_000);

  it('doctor --wake reports a handled wake with its tool call, and a failed one with the reason and output tail', async () => {
    const ok = await agentRooms(['doctor', '--wake', plates['claude-code']!, '--home', s.home], user);
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(/^ok +wake @[^ ]+ \([A-Z0-9-]+\): handled by runner in [\d.]+ s with \d+ tool call\(s\)$/m);

    const failing = await s.agent('Walk failing');
    expect(
      (await s.api('PUT', `/v1/agents/${failing.plate}/runners/codex`, { command: process.execPath, args: ['-e', 'console.error("model refused: quota"); process.exit(3)'] })).status,
    ).toBe(200);
    const bad = await agentRooms(['doctor', '--wake', failing.plate, '--timeout', '60', '--home', s.home], user);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^fail wake @[^ ]+ \([A-Z0-9-]+\): failed after [\d.]+ s: the runner exited with code 3/m);
    expect(bad.stdout).toContain('model refused: quota');
    await s.api('POST', `/v1/agents/${failing.plate}/revoke`);
  }, 240_000);

  it('re-connect replaces the runner and revokes the credential it replaces', async () => {
    const plate = plates['claude-code']!;
    const file = join(home.dir, '.claude.json');
    const server = mcpServerName(plate);
    const old = /Bearer (\S+)/.exec(JSON.parse(readFileSync(file, 'utf8')).mcpServers[server].headers.Authorization)![1]!;
    const r = await agentRooms(['connect', 'claude-code', '--agent', plate, '--home', s.home], user);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/revoked the credential of the earlier connect/);
    const fresh = /Bearer (\S+)/.exec(JSON.parse(readFileSync(file, 'utf8')).mcpServers[server].headers.Authorization)![1]!;
    expect(fresh).not.toBe(old);
    const creds = (await s.api('GET', `/v1/agents/${plate}/credentials`)).body.credentials as any[];
    expect(creds.filter((c) => c.device === 'claude-code (agent-rooms connect)' && !c.revoked)).toHaveLength(1);
    // The old credential no longer opens a session; the new one does.
    await expect(s.connect(old, 'claude-code')).rejects.toThrow();
    const client = await s.connect(fresh, 'claude-code');
    await client.close();
    expect((await s.api('GET', `/v1/agents/${plate}/runners`)).body.runners).toHaveLength(1);
  }, 120_000);
});
