import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { mcpServerName, codexTokenVar } from '../../shared/host-connect.js';
import { anthropicStandIn, openaiStandIn, type StandIn } from './standins.js';
import { agentRooms, freshHome, hostInstalled, pathWithHosts, run } from './helpers.js';

const all = ['claude', 'codex', 'gemini', 'mcp-inspector'].map(hostInstalled).every(Boolean);

/**
 * The room's tools as the host offered them to the model, from the stand-in's recorded requests:
 * Claude Code names them mcp__<server>__<tool> (listed as deferred tools in a system message);
 * Codex groups them in a namespace tool named after the server (dashes as underscores).
 */
function offeredRoomTools(model: StandIn, server: string): string[] {
  const names = new Set<string>();
  const text = JSON.stringify(model.requests.map((r) => r.body));
  for (const m of text.matchAll(new RegExp(`mcp__${server}__([a-z_]+)`, 'g'))) names.add(m[1]!);
  const ns = `mcp__${server.replace(/-/g, '_')}`;
  for (const r of model.requests) {
    for (const t of Array.isArray(r.body.tools) ? r.body.tools : []) {
      if (t?.type === 'namespace' && t.name === ns) for (const u of t.tools ?? []) names.add(u.name);
    }
  }
  return [...names];
}

describe.skipIf(!all)('agent-rooms connect, with the real host CLIs', () => {
  let s: TestServer;
  let home: ReturnType<typeof freshHome>;
  let env: NodeJS.ProcessEnv;
  let room: string;
  beforeAll(async () => {
    home = freshHome('connect');
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 1 } });
    room = await s.room('Connect room');
    env = { ...process.env, HOME: home.dir, PATH: pathWithHosts(), DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', GEMINI_API_KEY: 'standin-gemini-key' };
  });
  afterAll(async () => {
    await s?.stop();
    home?.cleanup();
  });

  const connectAs = async (host: string, agent: string, extra: string[] = []) => {
    const r = await agentRooms(['connect', host, '--agent', agent, '--room', room, '--home', s.home, ...extra], env);
    expect(r, r.stderr + r.stdout).toMatchObject({ code: 0 });
    const plate = /\(([A-Z0-9]+-AGT-[A-Z0-9]+)\)/.exec(r.stdout)?.[1];
    expect(plate).toBeTruthy();
    return { ...r, plate: plate!, server: mcpServerName(plate!) };
  };

  it('claude-code: connect writes ~/.claude.json (0600), the host reports it connected, and a claude -p session is offered the room tools', async () => {
    const c = await connectAs('claude-code', 'Connected Claude', ['--no-runner']);
    expect(c.stdout).toMatch(/wrote agent-rooms-[a-z0-9-]+ into .*\.claude\.json \(mode 600\)/);
    expect(c.stdout.trim().split('\n').pop()).toMatch(/will not wake on a mention: --no-runner/);
    expect(statSync(join(home.dir, '.claude.json')).mode & 0o777).toBe(0o600);
    const list = await run('claude', ['mcp', 'list'], env);
    expect(list.stdout).toMatch(new RegExp(`${c.server}.*Connected`));
    const model = await anthropicStandIn();
    try {
      const r = await run('claude', ['-p', 'list the rooms'], { ...env, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'sk-ant-standin' }, { cwd: home.dir });
      expect(r.code, r.stderr).toBe(0);
      expect(offeredRoomTools(model, c.server)).toEqual(expect.arrayContaining(['send_message', 'read_board', 'check_mentions', 'list_members']));
    } finally {
      await model.close();
    }
    // A plain connection is not a channel opt-in; --channels writes ?channels=1 and says how to launch.
    const ch = await agentRooms(['connect', 'claude-code', '--agent', 'Connected Claude', '--channels', '--print', '--home', s.home], env);
    expect(ch.stdout).toMatch(/\/mcp\/claude-code\?tools=core&channels=1/);
    expect(ch.stdout).toContain(`claude --channels server:${c.server}`);
  }, 120_000);

  it('codex: codex mcp add with a token variable whose value Codex loads from ~/.codex/.env (0600); codex exec is offered the room tools', async () => {
    const c = await connectAs('codex', 'Connected Codex', ['--no-runner']);
    const tokenVar = codexTokenVar(c.plate);
    const dotenv = join(home.dir, '.codex', '.env');
    expect(readFileSync(dotenv, 'utf8')).toMatch(new RegExp(`^${tokenVar}=ark_`, 'm'));
    expect(statSync(dotenv).mode & 0o777).toBe(0o600);
    const list = await run('codex', ['mcp', 'list'], env);
    expect(list.stdout).toContain(c.server);
    const model = await openaiStandIn();
    try {
      // No export in the shell: Codex reads the variable from its .env file itself.
      const r = await run(
        'codex',
        ['exec', '--skip-git-repo-check', '-c', 'model_provider="standin"', '-c', `model_providers.standin={name="standin", base_url="${model.url}/v1", env_key="OPENAI_API_KEY", wire_api="responses"}`, '-c', 'model="gpt-standin"', 'list the rooms'],
        { ...env, OPENAI_API_KEY: 'sk-standin' },
        { cwd: home.dir },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(offeredRoomTools(model, c.server)).toEqual(expect.arrayContaining(['send_message', 'read_board', 'check_mentions']));
    } finally {
      await model.close();
    }
  }, 120_000);

  it('gemini: connect writes ~/.gemini/settings.json (0600) with the auth type; gemini mcp list reports it connected', async () => {
    const c = await connectAs('gemini', 'Connected Gemini', ['--no-runner']);
    const file = join(home.dir, '.gemini', 'settings.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).security.auth.selectedType).toBe('gemini-api-key');
    // The user trusts the folder they work in (Gemini CLI suppresses MCP servers in untrusted folders).
    writeFileSync(join(home.dir, '.gemini', 'trustedFolders.json'), JSON.stringify({ [home.dir]: 'TRUST_FOLDER' }));
    const list = await run('gemini', ['mcp', 'list'], env, { cwd: home.dir });
    expect(list.stdout + list.stderr).toMatch(new RegExp(`${c.server}.*Connected`));
  }, 120_000);

  it('cursor: the server goes into ~/.cursor/mcp.json, owner-only', async () => {
    const c = await connectAs('cursor', 'Connected Cursor');
    const file = join(home.dir, '.cursor', 'mcp.json');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const entry = JSON.parse(readFileSync(file, 'utf8')).mcpServers[c.server];
    expect(entry.url).toBe(`${s.baseUrl}/mcp/cursor?tools=core`);
    expect(entry.headers.Authorization).toMatch(/^Bearer ark_/);
  }, 60_000);

  it('a host CLI that is not installed gets the exact lines printed instead, and says the agent will not wake', async () => {
    const r = await agentRooms(['connect', 'gemini', '--agent', 'Printed', '--home', s.home], { ...env, PATH: process.env.PATH ?? '' });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('gemini is not on PATH');
    expect(r.stdout).toMatch(/^gemini mcp add --scope user --transport http agent-rooms-[a-z0-9-]+ 'http:\/\/127\.0\.0\.1:\d+\/mcp\/gemini\?tools=core' --header 'Authorization: Bearer ark_/m);
    expect(r.stdout.trim().split('\n').pop()).toMatch(/will not wake on a mention yet: gemini is not on PATH/);
  }, 60_000);

  it('the MCP Inspector CLI lists and calls the tools with a --header credential', async () => {
    const a = await s.agent('Inspected');
    const args = ['--cli', `${s.baseUrl}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${a.credential}`];
    const list = await run('mcp-inspector', [...args, '--method', 'tools/list'], env);
    expect(list.code, list.stderr).toBe(0);
    const tools = JSON.parse(list.stdout).tools as Array<{ name: string; annotations?: Record<string, unknown> }>;
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['whoami', 'send_message', 'read_board']));
    expect(tools.find((t) => t.name === 'whoami')?.annotations).toMatchObject({ readOnlyHint: true });
    const call = await run('mcp-inspector', [...args, '--method', 'tools/call', '--tool-name', 'whoami'], env);
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(call.stdout).structuredContent.plate).toBe(a.plate);
  }, 120_000);
});
