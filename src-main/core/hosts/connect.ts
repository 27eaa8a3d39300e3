/**
 * `agent-rooms connect HOST --agent NAME` and `agent-rooms doctor` (docs/hosts.md). Both talk to
 * the running server over its own human API with the primary owner's token from the home.
 * `connect` writes the host's own config (owner-only files, merged with the user's entries) and
 * configures the host's preset runner with the CLI's absolute path; no credential ever goes on
 * a command line.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { defaultHome } from '../paths.js';
import { onPath } from '../util/which.js';
import { replaceFilePrivate } from '../util/private-write.js';
import { maskIssuedSecrets } from '../util/secret-mask.js';
import { parseLenientObject, type JsonObject } from '../util/lenient-json.js';
import { mcpServerName, shellLine } from '../../../shared/hosts.js';
import { connectPlan } from '../../../shared/host-connect.js';
import type { wakes } from '../../../shared/contracts/wakes.js';
import type { OutputOf } from '../../../shared/contracts/contract.js';
import { HOST_ADAPTERS, hostAdapter, type ConnectTools, type HostAdapter, type HostConfigEntry as AdapterEntry } from './adapter.js';

export { onPath };

export const HOSTS_USAGE = `  agent-rooms connect HOST --agent NAME [--room ID] [--channels] [--no-runner] [--tools core|full] [--work room|edit|full] [--env NAME,...] [--print] [--home DIR]
      Make an agent (created if new) wakeable from a host (${HOST_ADAPTERS.map((h) => h.id).join(', ')}): register the
      room's MCP server in the host's config with a fresh credential (the one it replaces is revoked) and
      configure the host's runner with the CLI's absolute path; prints the lines instead when the CLI is missing.
  agent-rooms doctor [--agent NAME] [--wake NAME [--timeout SECONDS]] [--home DIR]
      Check, from the server's own environment, whether a mention wakes each agent; --wake sends a real test wake.`;

/** The host CLI versions the presets were checked with (docs/hosts.md), by CLI name; older ones may lack a flag. */
export const SUPPORTED_VERSIONS: Record<string, { min: string; re: RegExp }> = Object.fromEntries(
  HOST_ADAPTERS.filter((h) => h.version.min !== '0.0.0').map((h) => [h.cli, { min: h.version.min, re: h.version.re }]),
);

interface Out {
  out(line: string): void;
}
const stdout: Out = { out: (l) => process.stdout.write(l + '\n') };

/** The device name connect's credentials carry: a re-connect revokes the earlier ones by it. */
export function connectDevice(host: string): string {
  return `${host} (agent-rooms connect)`;
}

const BOOLEAN_FLAGS = new Set(['--channels', '--print', '--no-runner']);

function parse(argv: string[], allowed: string[]): { positional: string[]; flags: Record<string, string | true> } {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const [name, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    if (!allowed.includes(name)) throw new Error(`unknown option ${name}`);
    if (BOOLEAN_FLAGS.has(name)) flags[name] = true;
    else {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${name} needs a value`);
      flags[name] = v;
    }
  }
  return { positional, flags };
}

interface Server {
  baseUrl: string;
  token: string;
}

/** The running server of a home: its URL and the primary owner's token. */
function serverOf(home: string): Server & { pid?: number } {
  const sj = join(home, 'server.json');
  if (!existsSync(sj)) throw new Error(`no running server found in ${home} (start it with: agent-rooms serve)`);
  const { port, pid } = JSON.parse(readFileSync(sj, 'utf8')) as { port: number; pid?: number };
  const token = readFileSync(join(home, 'owner-token'), 'utf8').trim();
  return { baseUrl: `http://127.0.0.1:${port}`, token, pid };
}

async function api(server: Server, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
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

const errText = (r: { status: number; body: any }) => r.body?.error?.message ?? String(r.status);

/** Runs a command to its end without a shell; output kept for the report. */
export function runCommand(argv: string[], timeoutMs = 30_000, env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], shell: false, env });
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

interface AgentRef {
  plate: string;
  name: string;
  handle: string;
}

/** The agent by plate, handle, slug or name among the owner's (not revoked). */
async function findAgent(server: Server, name: string): Promise<AgentRef | undefined> {
  const list = await api(server, 'GET', '/v1/agents');
  if (list.status !== 200) throw new Error(`listing agents failed (${errText(list)})`);
  const key = name.toLowerCase().replace(/^@/, '');
  return (list.body.agents as Array<AgentRef & { revoked: boolean }>).find(
    (a) =>
      !a.revoked &&
      (a.plate.toLowerCase() === key ||
        a.name.toLowerCase() === key ||
        a.handle.toLowerCase().replace(/^@/, '') === key ||
        a.handle.toLowerCase().replace(/^@/, '').startsWith(`${key}(`)),
  );
}

/** The agent by plate, handle, slug or name; created when no agent of the owner matches. */
async function findOrCreateAgent(server: Server, name: string, o: Out): Promise<AgentRef> {
  const found = await findAgent(server, name);
  if (found) return found;
  const created = await api(server, 'POST', '/v1/agents', { name });
  if (created.status !== 201) throw new Error(`creating agent "${name}" failed: ${errText(created)}`);
  o.out(`created agent ${created.body.handle} (${created.body.plate})`);
  return created.body as AgentRef;
}

/** Writes a file owner-only: a private temporary file renamed over the old one, then 0600 for sure. */
function writePrivate(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // A random temporary name created O_EXCL|O_NOFOLLOW, 0600, then renamed (docs/security.md "Third round").
  replaceFilePrivate(file, text);
}

/**
 * Merges into a user's JSON settings file: parsed leniently (comments, trailing commas), the
 * user's own entries kept. A file that is not a JSON object even leniently is refused, never
 * replaced. When the original had comments, a private copy of it is kept beside it.
 */
export function mergeJsonFile(file: string, change: (config: JsonObject) => void, o: Out): void {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
  const parsed = parseLenientObject(text);
  if ('error' in parsed) {
    throw new Error(`${file} is not a JSON object (${parsed.error}); fix or move it, then run connect again (it was not changed)`);
  }
  if (!parsed.strict) {
    const copy = `${file}.before-agent-rooms`;
    writePrivate(copy, text);
    o.out(`${file} has comments or trailing commas: your entries are kept, the comments are not (the original is in ${copy})`);
  }
  change(parsed.value);
  writePrivate(file, JSON.stringify(parsed.value, null, 2) + '\n');
}

/** `{a: {b: value}}` for the path [a, b]: an entry shown as it sits in its file. */
function nest(path: readonly string[], value: unknown): unknown {
  return path.reduceRight<unknown>((v, k) => ({ [k]: v }), value);
}

/** Sets `NAME=value` in a dotenv file (owner-only), keeping every other line. */
function mergeEnvFile(file: string, name: string, value: string): void {
  let lines: string[] = [];
  try {
    lines = readFileSync(file, 'utf8').split('\n');
  } catch {
    // a new file
  }
  const re = new RegExp(`^\\s*(export\\s+)?${name}=`);
  lines = lines.filter((l) => !re.test(l));
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  lines.push(`${name}=${value}`);
  writePrivate(file, lines.join('\n') + '\n');
}

/**
 * Registers the room's server in the host's own config through its adapter, the credential in
 * an owner-only file (never on a command line). Every write goes through the private writes
 * above. Returns a problem that keeps the agent from waking, if any.
 */
async function register(h: HostAdapter, plan: ReturnType<typeof connectPlan>, plate: string, credential: string, cli: string | undefined, env: NodeJS.ProcessEnv, o: Out): Promise<string | undefined> {
  const tools: ConnectTools = {
    mergeJson: (file, change) => mergeJsonFile(file, change, o),
    setEnvLine: (file, name, value) => mergeEnvFile(file, name, value),
    run: (argv) => runCommand(argv, 30_000, env),
    out: (line) => o.out(line),
  };
  return h.register({ plan, plate, credential, cli, env, tools });
}

export async function connect(argv: string[], o: Out = stdout, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { positional, flags } = parse(argv, ['--agent', '--room', '--channels', '--print', '--home', '--no-runner', '--tools', '--work', '--env']);
  const host = positional[0];
  const adapter = host ? hostAdapter(host) : undefined;
  if (!host || !adapter) throw new Error(`connect needs a host: ${HOST_ADAPTERS.map((h) => h.id).join(', ')}`);
  const home = (flags['--home'] as string | undefined) ?? defaultHome();
  const name = flags['--agent'] as string | undefined;
  if (!name) throw new Error('connect needs --agent NAME');
  const channels = flags['--channels'] === true;
  if (channels && !adapter.channels) throw new Error(`--channels is for ${HOST_ADAPTERS.filter((h) => h.channels).map((h) => h.id).join(', ')} only`);
  const tools = (flags['--tools'] as string | undefined) ?? 'core';
  if (tools !== 'core' && tools !== 'full') throw new Error('--tools takes core or full');
  const work = flags['--work'] as string | undefined;
  if (work !== undefined && work !== 'room' && work !== 'edit' && work !== 'full') throw new Error('--work takes room, edit or full');
  const extraEnv = ((flags['--env'] as string | undefined) ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const n of extraEnv) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(n) || n.startsWith('AGENT_ROOMS_')) throw new Error(`--env takes variable names (not AGENT_ROOMS_*): "${n}"`);

  const server = serverOf(home);
  const agent = await findOrCreateAgent(server, name, o);
  if (flags['--room']) {
    const room = flags['--room'] as string;
    const j = await api(server, 'POST', `/v1/rooms/${encodeURIComponent(room)}/members`, { plate: agent.plate });
    if (j.status !== 201 && j.status !== 200 && j.status !== 409) throw new Error(`adding the agent to ${room} failed: ${errText(j)}`);
  }
  const cli = adapter.cli;
  const cliPath = onPath(cli, env);
  // The credentials an earlier connect of this host gave the agent: revoked once the new one is in place.
  const before = await api(server, 'GET', `/v1/agents/${agent.plate}/credentials`);
  const earlier = ((before.body?.credentials ?? []) as Array<{ credential_id: string; device: string; revoked: boolean }>).filter(
    (c) => !c.revoked && c.device === connectDevice(host),
  );
  const cred = await api(server, 'POST', `/v1/agents/${agent.plate}/credentials`, { device: connectDevice(host) });
  if (cred.status !== 201) throw new Error(`minting a credential failed: ${errText(cred)}`);
  const credential = cred.body.credential as string;
  const plan = connectPlan({ host, plate: agent.plate, baseUrl: server.baseUrl, credential, channels, tools });
  o.out(`agent ${agent.handle} (${agent.plate}) -> ${host} as MCP server "${plan.server}" at ${plan.url}`);

  const handle = agent.handle.replace(/\(.*\)$/, '');
  if (flags['--print'] || (!cliPath && !adapter.configuredByFile)) {
    if (!flags['--print']) o.out(`${cli} is not on PATH: run these lines where it is installed:`);
    for (const c of plan.commands) o.out(shellLine(c));
    // A host configured by file only: the entry, as connect would write it.
    if (!plan.commands.length) for (const w of plan.writes) if (w.json) o.out(JSON.stringify(nest(w.json.path, w.json.value), null, 2));
    for (const n of plan.notes) o.out(n);
    o.out(`${handle} will not wake on a mention yet: ${cliPath ? 'no runner configured (--print)' : `${cli} is not on PATH`}; mentions wait in its inbox`);
    return 0;
  }

  const problem = await register(adapter, plan, agent.plate, credential, cliPath ?? undefined, env, o);
  for (const n of plan.notes) if (!n.includes(credential)) o.out(n);
  for (const c of earlier) {
    const r = await api(server, 'DELETE', `/v1/credentials/${c.credential_id}`);
    if (r.status === 200) o.out(`revoked the credential of the earlier connect (${c.credential_id})`);
  }

  const channelNote = channels ? `by channel push while \`claude --channels server:${plan.server}\` runs, else ` : '';
  if (flags['--no-runner']) {
    o.out(`${handle} will ${channels ? `wake ${channelNote.replace(/, else $/, '')} only; otherwise mentions wait in its inbox` : 'not wake on a mention: --no-runner; mentions wait in its inbox (check_mentions)'}`);
    return 0;
  }
  if (!cliPath) {
    o.out(`${handle} will not wake on a mention: ${cli} is not on PATH, so no runner was configured; mentions wait in its inbox`);
    return 0;
  }
  const runnerEnv: Record<string, string> = { HOME: env.HOME || homedir() };
  const copied: string[] = [];
  for (const n of [...adapter.connectEnv, ...extraEnv]) {
    const v = env[n];
    if (v !== undefined && v !== '') {
      runnerEnv[n] = v;
      copied.push(n);
    }
  }
  const existing = await api(server, 'GET', `/v1/agents/${agent.plate}/runners/${host}`);
  const keep =
    existing.status === 200
      ? {
          ...(existing.body.cwd ? { cwd: existing.body.cwd } : {}),
          ...(existing.body.timeout_ms ? { timeout_ms: existing.body.timeout_ms } : {}),
          ...(existing.body.work ? { work: existing.body.work } : {}),
        }
      : {};
  const preset = adapter.preset;
  const put = await api(server, 'PUT', `/v1/agents/${agent.plate}/runners/${host}`, { preset, command: cliPath, env: runnerEnv, ...keep, ...(work ? { work } : {}) });
  if (put.status !== 200) {
    o.out(`${handle} will not wake on a mention: the runner could not be configured (${errText(put)}); mentions wait in its inbox`);
    return 1;
  }
  o.out(`runner env: HOME${copied.length ? `, ${copied.join(', ')}` : ''} (values sealed on the server, never shown)`);
  if (problem) {
    o.out(`${handle} will not wake on a mention: ${problem}`);
    return 1;
  }
  const policy = (put.body?.work as string | null | undefined) ?? null;
  const does = policy === 'room' ? "the room's tools only" : policy === 'full' ? "edits and shell commands inside its host's sandbox" : policy === 'edit' ? "edits confined to the task's worktree" : "edits confined to the task's worktree, the room's tools only outside one";
  o.out(`work: ${policy ?? 'default'} (${does}; docs/worktrees.md)`);
  o.out(`${handle} will wake ${channelNote}by runner: ${cliPath} ${preset.split(' ').slice(1).join(' ')} (preset ${preset})`);
  return 0;
}

/** One checked line of the doctor's report. */
export interface Check {
  status: 'ok' | 'warn' | 'fail';
  what: string;
  detail: string;
}

/** Bearer credentials and ?key= secrets never reach the doctor's output. */
export function maskSecrets(s: string): string {
  // The one scanner of every secret shape, linear whatever the text (docs/security.md "Third round").
  return maskIssuedSecrets(s);
}

function modeOf(file: string): number | undefined {
  try {
    return statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
}


/** What `connect` wrote for this agent in a host's config: the file and the credential found there. */
interface HostConfigEntry extends AdapterEntry {
  host: string;
}

function hostEntries(server: string, plate: string, env: NodeJS.ProcessEnv): HostConfigEntry[] {
  return HOST_ADAPTERS.flatMap((h) => {
    const e = h.configEntry(server, plate, env);
    return e ? [{ ...e, host: h.id }] : [];
  });
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

interface Report {
  plate: string;
  handle: string;
  channel_session: boolean;
  runners: Array<{ host: string; preset: string | null; command: string; resolved: string | null; version: string | null; ok: boolean; problem: string | null; fix: string | null }>;
  wakes_by: 'channel' | 'runner' | 'inbox';
  reason: string;
  credentials: Array<{ live: boolean }>;
}

/** The checks of one agent: the server's view (runners, channel session) and the host configs. */
async function checkAgent(server: Server, a: AgentRef, env: NodeJS.ProcessEnv, add: (c: Check) => void): Promise<void> {
  const name = mcpServerName(a.plate);
  const entries = hostEntries(name, a.plate, env);
  const r = await api(server, 'POST', `/v1/agents/${a.plate}/doctor`, { credentials: entries.map((e) => e.credential ?? '-') });
  const who = `${a.handle} (${a.plate})`;
  if (r.status !== 200) {
    add({ status: 'fail', what: who, detail: `the server could not check it: ${errText(r)}` });
    return;
  }
  const rep = r.body as Report;
  for (const run of rep.runners) {
    const what = `${who} runner ${run.host}`;
    if (!run.ok) {
      add({ status: 'fail', what, detail: `${run.problem}. Fix: ${run.fix}` });
      continue;
    }
    const cli = run.resolved?.split('/').pop() ?? '';
    const supported = SUPPORTED_VERSIONS[cli];
    const version = supported?.re.exec(run.version ?? '')?.[1];
    if (supported && version && compareVersions(version, supported.min) < 0) {
      add({ status: 'warn', what, detail: `${run.resolved} ${version} is older than ${supported.min}, which the preset was checked with` });
    } else {
      add({ status: 'ok', what, detail: `${run.resolved} ${run.version ?? ''} (runs under the server's environment)`.trim() });
    }
  }
  entries.forEach((e, i) => {
    const what = `${who} ${e.host} config`;
    const mode = modeOf(e.file);
    const fix = `agent-rooms connect ${e.host} --agent ${a.plate}`;
    if (mode !== undefined && mode & 0o077) add({ status: 'fail', what, detail: `${e.file} holds a credential and is readable by others (mode ${mode.toString(8)}). Fix: chmod 600 ${e.file}` });
    else if (!e.credential) add({ status: 'fail', what, detail: `${e.file} has the server ${name} without a credential. Fix: ${fix}` });
    else if (!rep.credentials[i]?.live) add({ status: 'fail', what, detail: `${e.file} holds a revoked or unknown credential for ${name}. Fix: ${fix}` });
    else if (e.missing) add({ status: 'fail', what, detail: `${e.file} lacks ${e.missing.what}. Fix: ${e.missing.fix}` });
    else add({ status: 'ok', what, detail: `${e.file} (mode ${mode?.toString(8) ?? '?'}), credential live` });
  });
  if (rep.wakes_by === 'inbox') {
    const host = rep.runners[0]?.host ?? entries[0]?.host ?? HOST_ADAPTERS[0]!.id;
    add({ status: 'fail', what: who, detail: `a mention will not wake it: ${rep.reason}. Fix: agent-rooms connect ${host} --agent ${a.plate}` });
  } else {
    add({ status: 'ok', what: who, detail: `a mention wakes it by ${rep.wakes_by}: ${rep.reason}` });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How many agents `doctor` checks at once. */
const DOCTOR_PARALLEL = 4;

/**
 * `doctor --wake NAME`: a real mention of the agent, by its owner, in the owner's private Test
 * wakes room (POST /v1/test-wakes); reports how the wake ended (handled with a tool call, or the reason and output tail).
 */
async function testWake(server: Server, name: string, timeoutMs: number, add: (c: Check) => void, o: Out): Promise<void> {
  const a = await findAgent(server, name);
  if (!a) {
    add({ status: 'fail', what: `wake ${name}`, detail: `no agent "${name}" among yours. Fix: agent-rooms connect HOST --agent ${name}` });
    return;
  }
  const who = `${a.handle} (${a.plate})`;
  // Your own private Test wakes room, which the server finds by its owner, never by a name that
  // another owner could give a room of theirs (docs/wakes.md "Test wakes").
  const started = Date.now();
  const t = await api(server, 'POST', '/v1/test-wakes', { plate: a.plate, from: 'doctor' });
  if (t.status !== 201) throw new Error(`sending the test mention failed: ${errText(t)}`);
  const roomId = t.body.room_id as string;
  const m = { body: { message_id: t.body.message_id as string } };
  const first = t.body.wake as { plate: string; status: string; reason: string | null; wake_id: string | null } | undefined;
  if (!first || first.status === 'inbox' || !first.wake_id) {
    add({ status: 'fail', what: `wake ${who}`, detail: `the mention did not wake it: ${first?.reason ?? 'no wake was queued'}` });
    return;
  }
  o.out(`sent a test mention to ${who} in your "${t.body.room_name as string}" room (wake ${first.wake_id}); waiting up to ${Math.round(timeoutMs / 1000)} s`);
  for (;;) {
    const ws = await api(server, 'GET', `/v1/rooms/${roomId}/wakes?message_id=${encodeURIComponent(m.body.message_id as string)}`);
    const w = ((ws.body?.wakes ?? []) as Array<Record<string, any>>).find((x) => x.plate === a.plate);
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    if (w && (w.status === 'handled' || w.status === 'failed')) {
      const tail = maskSecrets(String(w.stderr_tail || w.stdout_tail || '').trim().split('\n').slice(-8).join('\n'));
      if (w.status === 'handled' && (w.tool_calls ?? 0) > 0) {
        add({ status: 'ok', what: `wake ${who}`, detail: `handled by ${w.target} in ${secs} s with ${w.tool_calls} tool call(s)` });
      } else if (w.status === 'handled' && w.target !== 'runner') {
        add({ status: 'ok', what: `wake ${who}`, detail: `handled by ${w.target} in ${secs} s` });
      } else {
        add({ status: 'fail', what: `wake ${who}`, detail: `${w.status} after ${secs} s: ${w.reason ?? 'no reason recorded'}${tail ? `\n  output tail:\n    ${tail.split('\n').join('\n    ')}` : ''}` });
      }
      return;
    }
    if (w && w.target === 'pull') {
      add({ status: 'fail', what: `wake ${who}`, detail: `the mention waits in the inbox: ${w.reason ?? 'no runner and no live channel session'}` });
      return;
    }
    if (Date.now() - started > timeoutMs) {
      add({ status: 'fail', what: `wake ${who}`, detail: `still ${w?.status ?? 'queued'} after ${secs} s (--timeout)` });
      return;
    }
    await sleep(250);
  }
}

/** What GET /v1/doctor/worktrees answers (contracts.wakes.worktreeDoctor). */
type WorktreeDoctor = OutputOf<typeof wakes.worktreeDoctor>;

/** git, the worktrees folder and its orphans, and what edit and full can do on the server's machine (docs/worktrees.md). */
async function checkWorktrees(server: Server, add: (c: Check) => void): Promise<void> {
  const r = await api(server, 'GET', '/v1/doctor/worktrees');
  if (r.status !== 200) {
    add({ status: 'warn', what: 'worktrees', detail: `the server did not say (${errText(r)})` });
    return;
  }
  const d = r.body as WorktreeDoctor;
  add(
    d.git.ok
      ? { status: 'ok', what: 'git', detail: `${d.git.version} (task worktrees need ${d.git.min_version} or newer)` }
      : { status: 'fail', what: 'git', detail: `${d.git.problem}. Fix: install git ${d.git.min_version} or newer on the server's PATH (apt-get install git)` },
  );
  add({ status: 'ok', what: 'worktrees', detail: `${d.worktrees_dir}${d.task_worktrees === null ? '' : ` (${d.task_worktrees} task worktree(s))`}` });
  for (const o of d.orphans.slice(0, 50)) {
    add({ status: 'warn', what: 'orphan worktree', detail: `${o.path}: ${o.why}. Fix: git worktree remove --force ${o.path} in the workspace repository (or delete the folder), then git worktree prune` });
  }
  if (d.orphans.length > 50) add({ status: 'warn', what: 'orphan worktree', detail: `${d.orphans.length - 50} more under ${d.worktrees_dir}` });
  const refused = d.work.filter((w) => !w.ok && !w.problem?.includes('has not been checked'));
  for (const w of refused) add({ status: 'warn', what: `work ${w.policy} (${w.preset})`, detail: `${w.problem}` });
}

export async function doctor(argv: string[], o: Out = stdout, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { flags } = parse(argv, ['--home', '--agent', '--wake', '--timeout']);
  const home = (flags['--home'] as string | undefined) ?? defaultHome();
  const timeout = Number(flags['--timeout'] ?? 300);
  if (!Number.isFinite(timeout) || timeout <= 0) throw new Error('--timeout takes seconds, more than 0');
  const checks: Check[] = [];
  const add = (c: Check) => {
    const checked = { ...c, detail: maskSecrets(c.detail) };
    checks.push(checked);
    o.out(`${checked.status.padEnd(4)} ${checked.what}: ${checked.detail}`);
  };

  // The home and its permissions: owner-only, as the server creates it.
  if (!existsSync(home)) add({ status: 'fail', what: 'home', detail: `${home} does not exist` });
  else {
    const mode = statSync(home).mode & 0o777;
    add({ status: mode & 0o077 ? 'warn' : 'ok', what: 'home', detail: `${home} (mode ${mode.toString(8)}${mode & 0o077 ? ', readable by others: chmod 700' : ''})` });
    const tokenFile = join(home, 'owner-token');
    if (existsSync(tokenFile)) {
      const tm = statSync(tokenFile).mode & 0o777;
      add({ status: tm & 0o077 ? 'fail' : 'ok', what: 'owner token', detail: `mode ${tm.toString(8)}${tm & 0o077 ? `: readable by others. Fix: chmod 600 ${tokenFile}` : ''}` });
    }
  }

  let server: Server | undefined;
  try {
    server = serverOf(home);
    const h = await fetch(`${server.baseUrl}/healthz`);
    add({ status: h.ok ? 'ok' : 'fail', what: 'server', detail: `${server.baseUrl} ${h.ok ? 'is up' : `answered ${h.status}`}` });
    if (!h.ok) server = undefined;
  } catch (err) {
    add({ status: 'fail', what: 'server', detail: `${(err as Error).message}. Fix: agent-rooms serve` });
    server = undefined;
  }

  if (server) await checkWorktrees(server, add);

  if (server) {
    let agents: AgentRef[];
    const only = (flags['--agent'] as string | undefined) ?? (flags['--wake'] as string | undefined);
    if (only) {
      const a = await findAgent(server, only);
      if (!a) add({ status: 'fail', what: `agent ${only}`, detail: `no agent "${only}" among yours. Fix: agent-rooms connect HOST --agent ${only}` });
      agents = a ? [a] : [];
    } else {
      const list = await api(server, 'GET', '/v1/agents');
      agents = ((list.body?.agents ?? []) as Array<AgentRef & { revoked: boolean }>).filter((a) => !a.revoked);
      if (!agents.length) add({ status: 'warn', what: 'agents', detail: 'no agents yet. Fix: agent-rooms connect HOST --agent NAME' });
    }
    // Agents are checked a few at a time (each check runs its runners' `--version`, seconds for some CLIs);
    // their lines come out in the agents' order, each agent's block once it and those before it are done.
    const blocks = agents.map(() => [] as Check[]);
    const finished = agents.map(() => false);
    let printed = 0;
    const flush = () => {
      while (printed < agents.length && finished[printed]) for (const c of blocks[printed++]!) add(c);
    };
    let next = 0;
    const worker = async () => {
      while (next < agents.length) {
        const i = next++;
        try {
          await checkAgent(server!, agents[i]!, env, (c) => blocks[i]!.push(c));
        } catch (err) {
          blocks[i]!.push({ status: 'fail', what: `${agents[i]!.handle} (${agents[i]!.plate})`, detail: `the check failed: ${(err as Error).message}` });
        }
        finished[i] = true;
        flush();
      }
    };
    await Promise.all(Array.from({ length: Math.min(DOCTOR_PARALLEL, agents.length) }, worker));
    if (flags['--wake'] && agents.length) await testWake(server, agents[0]!.plate, timeout * 1000, add, o);
  }
  const failed = checks.filter((c) => c.status === 'fail').length;
  o.out(failed ? `${failed} check(s) failed` : 'all checks passed');
  return failed ? 1 : 0;
}
