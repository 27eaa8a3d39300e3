/**
 * `agent-rooms connect HOST --agent NAME` and `agent-rooms doctor` (docs/hosts.md). Both talk to
 * the running server over its own human API with the primary owner's token from the home, and
 * to the host CLIs the way their users do (`claude mcp add`, `codex mcp add`, `gemini mcp add`,
 * Cursor's mcp.json).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync, accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { defaultHome } from '../paths.js';
import { isMcpHost, MCP_HOSTS, type McpHost } from '../../../shared/hosts.js';
import { connectPlan, mcpServerName, shellLine } from '../../../shared/host-connect.js';

export const HOSTS_USAGE = `  agent-rooms connect HOST --agent NAME [--room ID] [--channels] [--print] [--home DIR]
      Register the room's MCP server with a host (claude-code, codex, gemini, cursor) for an agent
      (created if new), with a fresh credential; prints the lines instead when the host CLI is missing.
  agent-rooms doctor [--home DIR]
      Check the server, the home's permissions, the runners' commands and the hosts' registrations.`;

/** The host CLI versions the presets were checked with (docs/hosts.md); older ones may lack a flag. */
export const SUPPORTED_VERSIONS: Record<string, { min: string; re: RegExp }> = {
  claude: { min: '2.1.0', re: /(\d+\.\d+\.\d+)/ },
  codex: { min: '0.169.0', re: /(\d+\.\d+\.\d+)/ },
  gemini: { min: '0.61.0', re: /(\d+\.\d+\.\d+)/ },
};

interface Out {
  out(line: string): void;
}
const stdout: Out = { out: (l) => process.stdout.write(l + '\n') };

interface ConnectFlags {
  home: string;
  agent?: string;
  room?: string;
  channels: boolean;
  print: boolean;
}

function parse(argv: string[], allowed: string[]): { positional: string[]; flags: Record<string, string | true> } {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  const boolean = new Set(['--channels', '--print']);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const [name, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    if (!allowed.includes(name)) throw new Error(`unknown option ${name}`);
    if (boolean.has(name)) flags[name] = true;
    else {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${name} needs a value`);
      flags[name] = v;
    }
  }
  return { positional, flags };
}

/** The running server of a home: its URL and the primary owner's token. */
function serverOf(home: string): { baseUrl: string; token: string; pid?: number } {
  const sj = join(home, 'server.json');
  if (!existsSync(sj)) throw new Error(`no running server found in ${home} (start it with: agent-rooms serve)`);
  const { port, pid } = JSON.parse(readFileSync(sj, 'utf8')) as { port: number; pid?: number };
  const token = readFileSync(join(home, 'owner-token'), 'utf8').trim();
  return { baseUrl: `http://127.0.0.1:${port}`, token, pid };
}

async function api(server: { baseUrl: string; token: string }, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(server.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${server.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

/** Finds a command on PATH (no shell). */
export function onPath(command: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (command.includes('/')) return existsSync(command) ? command : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, command);
    try {
      accessSync(p, constants.X_OK);
      if (statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Runs a command to its end without a shell; output kept for the report. */
export function runCommand(argv: string[], timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], shell: false });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(t);
      resolve({ code: null, stdout: out, stderr: String(e.message) });
    });
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, stdout: out, stderr: err });
    });
  });
}

/** The agent by plate, handle, slug or name; created when no agent of the owner matches. */
async function findOrCreateAgent(server: { baseUrl: string; token: string }, name: string, o: Out) {
  const list = await api(server, 'GET', '/v1/agents');
  if (list.status !== 200) throw new Error(`listing agents failed (${list.status})`);
  const key = name.toLowerCase().replace(/^@/, '');
  const found = (list.body.agents as Array<{ plate: string; name: string; handle: string; revoked: boolean }>).find(
    (a) => !a.revoked && (a.plate.toLowerCase() === key || a.name.toLowerCase() === key || a.handle.toLowerCase().replace(/^@/, '').startsWith(`${key}(`)),
  );
  if (found) return found;
  const created = await api(server, 'POST', '/v1/agents', { name });
  if (created.status !== 201) throw new Error(`creating agent "${name}" failed: ${created.body?.error?.message ?? created.status}`);
  o.out(`created agent ${created.body.handle} (${created.body.plate})`);
  return created.body as { plate: string; name: string; handle: string };
}

function cursorConfigPath(): string {
  return join(homedir(), '.cursor', 'mcp.json');
}

export async function connect(argv: string[], o: Out = stdout): Promise<number> {
  const { positional, flags } = parse(argv, ['--agent', '--room', '--channels', '--print', '--home']);
  const host = positional[0];
  if (!host || !isMcpHost(host)) throw new Error(`connect needs a host: ${MCP_HOSTS.join(', ')}`);
  const f: ConnectFlags = {
    home: (flags['--home'] as string | undefined) ?? defaultHome(),
    agent: flags['--agent'] as string | undefined,
    room: flags['--room'] as string | undefined,
    channels: flags['--channels'] === true,
    print: flags['--print'] === true,
  };
  if (!f.agent) throw new Error('connect needs --agent NAME');
  if (f.channels && host !== 'claude-code') throw new Error('--channels is for claude-code only');
  const server = serverOf(f.home);
  const agent = await findOrCreateAgent(server, f.agent, o);
  if (f.room) {
    const j = await api(server, 'POST', `/v1/rooms/${encodeURIComponent(f.room)}/members`, { plate: agent.plate });
    if (j.status !== 201 && j.status !== 200 && j.status !== 409) throw new Error(`adding the agent to ${f.room} failed: ${j.body?.error?.message ?? j.status}`);
  }
  const cred = await api(server, 'POST', `/v1/agents/${agent.plate}/credentials`, { device: `${host} (agent-rooms connect)` });
  if (cred.status !== 201) throw new Error(`minting a credential failed: ${cred.body?.error?.message ?? cred.status}`);
  const plan = connectPlan({ host: host as McpHost, plate: agent.plate, baseUrl: server.baseUrl, credential: cred.body.credential as string, channels: f.channels });
  o.out(`agent ${agent.handle} (${agent.plate}) -> ${host} as MCP server "${plan.server}" at ${plan.url}`);

  if (host === 'cursor') {
    const file = cursorConfigPath();
    if (f.print) {
      for (const n of plan.notes) o.out(n);
      return 0;
    }
    let config: { mcpServers?: Record<string, unknown> } = {};
    try {
      config = JSON.parse(readFileSync(file, 'utf8')) as typeof config;
    } catch {
      // a new file
    }
    config.mcpServers = { ...(config.mcpServers ?? {}), [plan.server]: plan.cursorEntry };
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
    o.out(`wrote ${plan.server} into ${file}`);
    return 0;
  }

  const installed = plan.cli ? onPath(plan.cli) : undefined;
  if (f.print || !installed) {
    if (!f.print) o.out(`${plan.cli} is not on PATH: run these lines where it is installed:`);
    for (const c of plan.commands) o.out(shellLine(c));
    for (const n of plan.notes) o.out(n);
    return 0;
  }
  for (const c of plan.commands) {
    // A server of the same name from an earlier connect is replaced, not duplicated.
    await runCommand([installed, 'mcp', 'remove', ...(plan.cli === 'codex' ? [] : ['--scope', 'user']), plan.server]);
    const r = await runCommand([installed, ...c.slice(1)]);
    if (r.code !== 0) {
      o.out(`${shellLine(c.slice(0, 4))} … failed (exit ${r.code}): ${(r.stderr || r.stdout).trim().split('\n').pop() ?? ''}`);
      return 1;
    }
  }
  o.out(`registered with ${plan.cli}`);
  for (const n of plan.notes) o.out(n);
  return 0;
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/** One checked line of the doctor's report. */
export interface Check {
  status: 'ok' | 'warn' | 'fail';
  what: string;
  detail: string;
}

export async function doctor(argv: string[], o: Out = stdout): Promise<number> {
  const { flags } = parse(argv, ['--home']);
  const home = (flags['--home'] as string | undefined) ?? defaultHome();
  const checks: Check[] = [];
  const add = (c: Check) => {
    checks.push(c);
    o.out(`${c.status.padEnd(4)} ${c.what}: ${c.detail}`);
  };

  // The home and its permissions: owner-only, as the server creates it.
  if (!existsSync(home)) add({ status: 'fail', what: 'home', detail: `${home} does not exist` });
  else {
    const mode = statSync(home).mode & 0o777;
    add({ status: mode & 0o077 ? 'warn' : 'ok', what: 'home', detail: `${home} (mode ${mode.toString(8)}${mode & 0o077 ? ', readable by others: chmod 700' : ''})` });
    const tokenFile = join(home, 'owner-token');
    if (existsSync(tokenFile)) {
      const tm = statSync(tokenFile).mode & 0o777;
      add({ status: tm & 0o077 ? 'fail' : 'ok', what: 'owner token', detail: `mode ${tm.toString(8)}${tm & 0o077 ? ': readable by others, chmod 600' : ''}` });
    }
  }

  // The server answers.
  let server: { baseUrl: string; token: string } | undefined;
  try {
    server = serverOf(home);
    const h = await fetch(`${server.baseUrl}/healthz`);
    add({ status: h.ok ? 'ok' : 'fail', what: 'server', detail: `${server.baseUrl} ${h.ok ? 'is up' : `answered ${h.status}`}` });
  } catch (err) {
    add({ status: 'fail', what: 'server', detail: (err as Error).message });
    server = undefined;
  }

  // Each configured runner's command is on PATH at a version its preset supports.
  const plates: string[] = [];
  if (server) {
    const agents = await api(server, 'GET', '/v1/agents');
    for (const a of (agents.body?.agents ?? []) as Array<{ plate: string; revoked: boolean }>) {
      if (a.revoked) continue;
      plates.push(a.plate);
      const rs = await api(server, 'GET', `/v1/agents/${a.plate}/runners`);
      for (const r of (rs.body?.runners ?? []) as Array<{ host: string; command: string; env?: Record<string, string> }>) {
        const path = onPath(r.command);
        if (!path) {
          add({ status: 'fail', what: `runner ${a.plate}/${r.host}`, detail: `${r.command} is not on PATH` });
          continue;
        }
        const v = await runCommand([path, '--version'], 20_000);
        const supported = SUPPORTED_VERSIONS[r.command];
        const version = supported?.re.exec(v.stdout + v.stderr)?.[1];
        if (supported && version && compareVersions(version, supported.min) < 0) {
          add({ status: 'warn', what: `runner ${a.plate}/${r.host}`, detail: `${r.command} ${version} is older than ${supported.min}, which the preset was checked with` });
        } else {
          add({ status: v.code === 0 ? 'ok' : 'warn', what: `runner ${a.plate}/${r.host}`, detail: `${path} ${version ?? (v.stdout || v.stderr).trim().split('\n')[0] ?? ''}` });
        }
      }
    }
  }

  // Each host's registrations of this server, with the host's own health check where it has one.
  const names = new Set(plates.map(mcpServerName));
  for (const cli of ['claude', 'codex', 'gemini'] as const) {
    const path = onPath(cli);
    if (!path) continue;
    const r = await runCommand([path, 'mcp', 'list'], 60_000);
    const lines = (r.stdout + '\n' + r.stderr).split('\n').filter((l) => /agent-rooms-/.test(l));
    if (!lines.length) {
      add({ status: 'warn', what: `${cli} registration`, detail: 'no agent-rooms server registered (agent-rooms connect)' });
      continue;
    }
    for (const l of lines) {
      const name = /(agent-rooms-[a-z0-9-]+)/.exec(l)?.[1] ?? '';
      const unknown = names.size > 0 && !names.has(name);
      const bad = /fail|error|disconnected|✗|needs auth/i.test(l);
      // Gemini CLI lists its servers as Disabled in a folder the user has not trusted.
      const disabled = /disabled/i.test(l);
      add({ status: bad ? 'fail' : unknown || disabled ? 'warn' : 'ok', what: `${cli} ${name}`, detail: unknown ? 'not an agent of this home' : l.replace(/Bearer\s+\S+/g, 'Bearer ***').trim() });
    }
  }
  const cursorFile = cursorConfigPath();
  if (existsSync(cursorFile)) {
    const has = /agent-rooms-/.test(readFileSync(cursorFile, 'utf8'));
    add({ status: has ? 'ok' : 'warn', what: 'cursor registration', detail: has ? cursorFile : `no agent-rooms server in ${cursorFile}` });
  }
  const failed = checks.filter((c) => c.status === 'fail').length;
  o.out(failed ? `${failed} check(s) failed` : 'all checks passed');
  return failed ? 1 : 0;
}
