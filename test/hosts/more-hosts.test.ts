import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { mcpServerName } from '../../shared/hosts.js';
import { onPath } from '../../src-main/core/util/which.js';
import { chatStandIn, REPLY_PREFIX, type StandIn } from './standins.js';
import { agentRooms, freshHome, hostInstalled, pathWithHosts, run } from './helpers.js';

/**
 * The README walk for the hosts that reach the room through the generic `/mcp` resource
 * (docs/hosts.md: opencode, GitHub Copilot CLI, Qwen Code, Cline), each as a new user would:
 * a throwaway HOME with only that CLI's model settings (a loopback OpenAI Chat Completions
 * stand-in), the CLI on the user's PATH and not on the server's; `connect HOST --agent NAME
 * --room ROOM` exits 0 and says how the agent will wake; `doctor` passes; a human mention ends
 * `handled` with a tool call; the model was told the room; the wake records the tokens the CLI
 * reported; no credential on any process's argv (sampled from /proc throughout) or in a file
 * others can read. opencode runs under a user's `"*": "ask"` rule; a re-connect revokes.
 */

const CLIS = ['opencode', 'copilot', 'qwen', 'cline'] as const;
const all = CLIS.map(hostInstalled).every(Boolean);
const CREDENTIAL_RE = /\bark_[A-Za-z0-9_-]{20,}/;

/** The parent of a process, from /proc/<pid>/stat (its fourth field, after the name in parentheses). */
function parentOf(pid: string): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
  } catch {
    return undefined;
  }
}

/** The command lines holding a credential of every process this test started, directly or not (as walk.test.ts samples them). */
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

/** Files under `dir` holding a credential that someone other than the owner can read. */
function readableCredentialFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    if (depth > 8) return;
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      let st;
      try {
        st = statSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (n !== 'node_modules' && n !== 'pkg') walk(p, depth + 1);
      } else if (st.isFile() && st.size < 4 * 1024 * 1024 && st.mode & 0o077) {
        try {
          if (CREDENTIAL_RE.test(readFileSync(p, 'utf8'))) out.push(`${p} (mode ${(st.mode & 0o777).toString(8)})`);
        } catch {
          // unreadable
        }
      }
    }
  };
  walk(dir, 0);
  return out;
}

/** Cline's hub daemons whose environment has this HOME (a run must leave none). */
function hubDaemons(home: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--cline-hub-daemon')) continue;
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`HOME=${home}`)) found.push(Number(pid));
    } catch {
      // gone
    }
  }
  return found;
}

const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

interface HostCase {
  host: (typeof CLIS)[number];
  preset: string;
  agent: string;
  /** The file connect writes and the key path of the room's entry in it. */
  config: (home: string) => { file: string; entry: (c: any, server: string) => any };
  /** The user's own model settings in a throwaway HOME: files, and the shell variables. */
  setup: (home: string, model: StandIn) => Promise<Record<string, string>>;
}

const cases: HostCase[] = [
  {
    host: 'opencode',
    preset: 'opencode run',
    agent: 'More opencode',
    config: (home) => ({ file: join(home, '.config', 'opencode', 'opencode.json'), entry: (c, server) => c.mcp?.[server] }),
    async setup(home, model) {
      // The user asks before every tool: `opencode run` rejects what asks, so the run must allow the room's tools itself.
      mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
      writeFileSync(
        join(home, '.config', 'opencode', 'opencode.json'),
        JSON.stringify({
          $schema: 'https://opencode.ai/config.json',
          provider: { standin: { npm: '@ai-sdk/openai-compatible', name: 'Stand-in', options: { baseURL: `${model.url}/v1`, apiKey: 'sk-standin-key' }, models: { 'gpt-standin': { name: 'gpt-standin' } } } },
          model: 'standin/gpt-standin',
          permission: { '*': 'ask' },
        }),
      );
      return { OPENCODE_DISABLE_MODELS_FETCH: '1' };
    },
  },
  {
    host: 'copilot',
    preset: 'copilot --allow-tool',
    agent: 'More Copilot',
    config: (home) => ({ file: join(home, '.copilot', 'mcp-config.json'), entry: (c, server) => c.mcpServers?.[server] }),
    // Copilot CLI's own provider mode (BYOK), offline: no GitHub sign-in.
    setup: async (_home, model) => ({ COPILOT_OFFLINE: 'true', COPILOT_PROVIDER_BASE_URL: `${model.url}/v1`, COPILOT_PROVIDER_API_KEY: 'sk-standin-key', COPILOT_MODEL: 'gpt-standin' }),
  },
  {
    host: 'qwen',
    preset: 'qwen -o stream-json',
    agent: 'More Qwen',
    config: (home) => ({ file: join(home, '.qwen', 'settings.json'), entry: (c, server) => c.mcpServers?.[server] }),
    async setup(home, model) {
      mkdirSync(join(home, '.qwen'), { recursive: true });
      writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'openai' } }, model: { name: 'gpt-standin' } }));
      return { OPENAI_API_KEY: 'sk-standin-key', OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_MODEL: 'gpt-standin' };
    },
  },
  {
    host: 'cline',
    preset: 'cline -v',
    agent: 'More Cline',
    config: (home) => ({ file: join(home, '.cline', 'data', 'settings', 'cline_mcp_settings.json'), entry: (c, server) => c.mcpServers?.[server]?.transport }),
    async setup(home, model) {
      // As a Cline user sets up a model: `cline auth` with an OpenAI-compatible provider.
      const r = await run('cline', ['auth', '-p', 'openai', '-k', 'sk-standin-key', '-m', 'gpt-standin', '-b', `${model.url}/v1`], { ...process.env, HOME: home, PATH: pathWithHosts() }, { timeoutMs: 120_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      return {};
    },
  },
];

describe.skipIf(!all)('more hosts: opencode, Copilot CLI, Qwen Code and Cline wake from a mention', () => {
  let s: TestServer;
  let room: string;
  let argvWatch: ReturnType<typeof watchArgv>;
  const homes: Array<ReturnType<typeof freshHome>> = [];
  const models: StandIn[] = [];
  const timings: string[] = [];
  const users = new Map<string, NodeJS.ProcessEnv>();
  const plates = new Map<string, string>();

  beforeAll(async () => {
    // The server's own environment lacks the CLIs (a desktop app never has the shell's PATH).
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 1 } });
    room = await s.room('More hosts room');
    argvWatch = watchArgv();
  });
  afterAll(async () => {
    const leaked = argvWatch?.stop() ?? [];
    await s?.stop();
    for (const m of models) await m.close();
    for (const h of homes) h.cleanup();
    if (timings.length) console.log(`mention -> first tool call: ${timings.join(', ')}`);
    expect(leaked, 'a credential was on some process argv').toEqual([]);
  });

  for (const c of cases) {
    it(`${c.host}: connect says how it wakes, doctor passes, a human mention ends handled with a tool call and the tokens the CLI reported`, async () => {
      expect(onPath(c.host, process.env), 'the server finds no host CLI on its own PATH').toBeUndefined();
      const home = freshHome(`more-${c.host}`);
      homes.push(home);
      const model = await chatStandIn();
      models.push(model);
      const user: NodeJS.ProcessEnv = { ...process.env, HOME: home.dir, PATH: pathWithHosts(), ...(await c.setup(home.dir, model)) };
      users.set(c.host, user);

      const r = await agentRooms(['connect', c.host, '--agent', c.agent, '--room', room, '--home', s.home], user);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toMatch(CREDENTIAL_RE);
      const plate = /\(([A-Z0-9]+-AGT-[A-Z0-9]+)\)/.exec(r.stdout)![1]!;
      plates.set(c.host, plate);
      const abs = onPath(c.host, user)!;
      expect(r.stdout.trim().split('\n').pop()).toMatch(new RegExp(`will wake by runner: ${abs.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*\\(preset ${c.preset.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)$`));
      const runner = await s.api('GET', `/v1/agents/${plate}/runners/${c.host}`);
      expect(runner.body).toMatchObject({ preset: c.preset, command: abs });

      // The config connect wrote: owner-only, the room's entry at the generic resource with the core profile.
      const server = mcpServerName(plate);
      const { file, entry } = c.config(home.dir);
      expect(mode(file)).toBe('600');
      const e = entry(JSON.parse(readFileSync(file, 'utf8')), server);
      expect(e.url ?? e.httpUrl).toBe(`${s.baseUrl}/mcp?tools=core`);
      if (c.host === 'qwen') {
        // Qwen Code rewrites settings.json readable by all: it names the variable, whose value is in ~/.qwen/.env (0600).
        const tokenVar = /^Bearer \$(AGENT_ROOMS_TOKEN_[A-Z0-9_]+)$/.exec(e.headers.Authorization)?.[1];
        expect(tokenVar, e.headers.Authorization).toBeTruthy();
        const dotenv = join(home.dir, '.qwen', '.env');
        expect(mode(dotenv)).toBe('600');
        expect(readFileSync(dotenv, 'utf8')).toMatch(new RegExp(`^${tokenVar}=ark_`, 'm'));
        expect(readFileSync(file, 'utf8')).not.toMatch(CREDENTIAL_RE);
      } else {
        expect(e.headers.Authorization).toMatch(/^Bearer ark_/);
      }

      const doc = await agentRooms(['doctor', '--agent', plate, '--home', s.home], user);
      expect(doc.code, doc.stdout).toBe(0);
      expect(doc.stdout).toMatch(new RegExp(`^ok +@[^ ]+ \\(${plate}\\) runner ${c.host}: /`, 'm'));
      expect(doc.stdout).not.toMatch(CREDENTIAL_RE);

      // A human mention: handled with a tool call, the reply in the room as the agent.
      const handle = (await s.api('GET', `/v1/agents/${plate}`)).body.handle as string;
      const m = await s.api('POST', `/v1/rooms/${room}/messages`, { body: `walk check ${c.host}`, mention_targets: [handle] });
      expect(m.status).toBe(201);
      expect(m.body.wakes).toEqual([expect.objectContaining({ plate, status: 'queued', target: 'runner' })]);
      const end = Date.now() + 240_000;
      let wake: any;
      while (Date.now() < end) {
        wake = ((await s.api('GET', `/v1/rooms/${room}/wakes?message_id=${m.body.message_id}`)).body.wakes as any[])[0];
        if (wake && (wake.status === 'handled' || wake.status === 'failed')) break;
        await new Promise((res) => setTimeout(res, 200));
      }
      expect(wake, JSON.stringify(wake)).toMatchObject({ status: 'handled', target: 'runner', host: c.host });
      expect(wake.tool_calls, JSON.stringify({ wake, toolCalls: model.toolCalls })).toBeGreaterThanOrEqual(1);
      const reply = ((await s.api('GET', `/v1/rooms/${room}/messages`)).body.messages as any[]).find((x) => x.body === `${REPLY_PREFIX}walk check ${c.host}`);
      expect(reply?.sender.plate, JSON.stringify(model.toolCalls)).toBe(plate);
      timings.push(`${c.host} ${Date.parse(reply.created_at) - Date.parse(m.body.created_at)} ms`);

      // The model was told the room and the wake (the envelope as the host's own instructions), the content verbatim as the user's text.
      const told = model.requests.filter((q) => JSON.stringify(q.body.messages ?? []).includes(wake.wake_id));
      expect(told.length, 'the envelope reached the model').toBeGreaterThan(0);
      const system = told[0]!.body.messages.filter((x: any) => x.role === 'system').map((x: any) => JSON.stringify(x.content)).join('\n');
      expect(system).toContain(room);
      expect(system).toContain(wake.wake_id);
      expect(JSON.stringify(told[0]!.body.messages.filter((x: any) => x.role === 'user'))).toContain(`walk check ${c.host}`);
      // The room's tools under the agent's server name (the host's own spelling of it).
      expect(model.toolCalls.some((t) => t.name.includes(server) && t.name.endsWith('send_message'))).toBe(true);

      // The tokens the CLI reported: each stand-in answer is 10 prompt tokens (2 cached) and 5 out;
      // k answers of the wake were counted, however the host spells them (opencode leaves the cached ones out of its input).
      const u = wake.usage;
      expect(u, JSON.stringify(wake)).toBeTruthy();
      const k = u.output_tokens / 5;
      expect(Number.isInteger(k) && k >= 1 && k <= model.reported.answers, JSON.stringify(u)).toBe(true);
      expect(u.cache_read_tokens).toBe(2 * k);
      expect([8 * k, 10 * k]).toContain(u.input_tokens);

      // No credential in a file others can read, in the HOME or the runs' temporary folders (removed by now).
      expect(readableCredentialFiles(home.dir)).toEqual([]);
      if (c.host === 'cline') expect(hubDaemons(home.dir), 'the run left a cline hub daemon').toEqual([]);
    }, 420_000);
  }

  it('opencode: a re-connect revokes the credential it replaces; the old one no longer opens a session', async () => {
    const plate = plates.get('opencode');
    expect(plate, 'the opencode walk ran').toBeDefined();
    const user = users.get('opencode')!;
    const file = join(user.HOME!, '.config', 'opencode', 'opencode.json');
    const server = mcpServerName(plate!);
    const bearer = () => /Bearer (\S+)/.exec(JSON.parse(readFileSync(file, 'utf8')).mcp[server].headers.Authorization)![1]!;
    const old = bearer();
    const r = await agentRooms(['connect', 'opencode', '--agent', plate!, '--home', s.home], user);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/revoked the credential of the earlier connect/);
    const fresh = bearer();
    expect(fresh).not.toBe(old);
    // The user's own entries are kept.
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ model: 'standin/gpt-standin', permission: { '*': 'ask' } });
    await expect(s.connect(old)).rejects.toThrow();
    const client = await s.connect(fresh);
    await client.close();
  }, 120_000);
});
