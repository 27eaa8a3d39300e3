import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { anthropicStandIn, geminiStandIn, openaiStandIn, type StandIn, type Step } from './standins.js';
import { agentRooms, freshHome, hostInstalled, pathWithHosts, writeCodexConfig } from './helpers.js';

/**
 * Agents do the work (docs/worktrees.md), walked as a user would with the real Claude Code, Codex
 * and Gemini CLIs against stand-ins of their model APIs that use the hosts' own edit tools:
 * `agent-rooms connect`, a git repository as the room's workspace, tasks assigned. Two tasks at
 * once each work in a worktree of their own on their own branch; the default policy writes in the
 * worktree and only there (a write into the base folder refused, no shell); what a run leaves is
 * a commit by the agent naming the wake; `connect --work room` denies the write; the transcript
 * holds the edit and the result, pages with `?after=` and carries no credential; a hostile title
 * gives a valid branch and runs nothing; changes requested on a line (docs/review.md) wake Claude Code
 * in the same worktree and its new commit lands. Prints mention -> first edit per CLI.
 */
const all = ['claude', 'codex', 'gemini'].map(hostInstalled).every(Boolean);
const CREDENTIAL_RE = /\bark_[A-Za-z0-9_-]{20,}/;
const git = async (cwd: string, ...args: string[]) => (await promisify(execFile)('git', args, { cwd })).stdout.trim();

describe.skipIf(!all)('agents do the work in worktrees of their own, with the real host CLIs', () => {
  let s: TestServer;
  let home: ReturnType<typeof freshHome>;
  let repo: string;
  let baseHead: string;
  let room: string;
  const models: StandIn[] = [];
  const timings: string[] = [];
  let base: NodeJS.ProcessEnv;

  /** The steps every scripted model takes: a write in its folder, one into the base repository, a command. */
  const steps = (shell: string): Step[] => [
    { kind: 'write', path: 'CHANGELOG.md', content: '## 0.2\n\n- Agents work in worktrees of their own.\n' },
    { kind: 'write', path: join(repo, 'outside.txt'), content: 'should never be written\n' },
    { kind: 'shell', command: shell },
  ];

  beforeAll(async () => {
    home = freshHome('worktrees');
    repo = join(home.dir, 'project');
    mkdirSync(repo);
    await git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README.md'), '# project\n');
    await git(repo, 'add', '.');
    await git(repo, '-c', 'user.name=Ada', '-c', 'user.email=ada@example.invalid', 'commit', '-q', '-m', 'base');
    baseHead = await git(repo, 'rev-parse', 'HEAD');
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 1 } });
    room = await s.room('Worktree walk');
    expect((await s.api('PUT', `/v1/rooms/${room}/workspace`, { local_path: repo })).status).toBe(200);
    base = {
      ...process.env,
      HOME: home.dir,
      PATH: pathWithHosts(),
      ANTHROPIC_API_KEY: 'sk-ant-standin-key',
      OPENAI_API_KEY: 'sk-standin-key',
      GEMINI_API_KEY: 'standin-gemini-key',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
  });
  afterAll(async () => {
    await s?.stop();
    for (const m of models) await m.close();
    home?.cleanup();
    if (timings.length) console.log(`mention -> first edit: ${timings.join(', ')}`);
  });

  /** `agent-rooms connect` from the user's shell, with that agent's model stand-in; its plate and handle. */
  async function connect(host: string, agent: string, env: NodeJS.ProcessEnv, extra: string[] = []) {
    const r = await agentRooms(['connect', host, '--agent', agent, '--room', room, '--home', s.home, ...extra], env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(CREDENTIAL_RE);
    const plate = /\(([A-Z0-9]+-AGT-[A-Z0-9]+)\)/.exec(r.stdout)![1]!;
    return { plate, stdout: r.stdout };
  }

  async function assign(plate: string, title: string) {
    const r = await s.api('POST', `/v1/rooms/${room}/tasks`, { title, definition_of_done: 'the entry is in CHANGELOG.md', assignee: plate });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body as { task_id: string; created_at: string };
  }

  async function ended(taskId: string): Promise<any> {
    const end = Date.now() + 200_000;
    for (;;) {
      const w = ((await s.api('GET', `/v1/rooms/${room}/wakes?task_id=${taskId}`)).body.wakes as any[]).find((x) => x.status === 'handled' || x.status === 'failed');
      if (w) return w;
      if (Date.now() > end) throw new Error(`the wake of ${taskId} did not end`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async function transcript(wakeId: string): Promise<any[]> {
    const out: any[] = [];
    let after = 0;
    for (let pages = 0; pages < 50; pages++) {
      const p = (await s.api('GET', `/v1/wakes/${wakeId}/transcript?after=${after}&limit=5`)).body;
      expect(JSON.stringify(p)).not.toMatch(CREDENTIAL_RE);
      out.push(...p.events);
      if (p.next_after === null) break;
      expect(p.next_after).toBe(p.events[p.events.length - 1].seq);
      after = p.next_after;
    }
    return out;
  }

  /** What the task's branch holds and who wrote it, and that the base folder is exactly as it was. */
  async function checkWork(taskId: string, wake: any, handle: string) {
    const t = (await s.api('GET', `/v1/rooms/${room}/tasks/${taskId}`)).body;
    expect(t.worktree, t.worktree_reason).not.toBeNull();
    expect(t.worktree.branch).toMatch(/^rooms\/[a-z0-9]{1,8}-[a-z0-9-]+$/);
    expect(t.worktree.base_branch).toBe('main');
    expect(t.worktree.base_commit).toBe(baseHead);
    // The branch holds the edit and nothing else the host may have left in its working folder.
    expect(await git(repo, 'diff', '--name-only', `${baseHead}..${t.worktree.branch}`)).toBe('CHANGELOG.md');
    const msg = await git(repo, 'log', '-1', '--format=%an%n%B', t.worktree.branch);
    expect(msg).toContain(handle.replace(/\(.*\)$/, ''));
    expect(msg).toContain(wake.wake_id);
    expect(readFileSync(join(t.worktree.path, 'CHANGELOG.md'), 'utf8')).toContain('## 0.2');
    expect(await git(repo, 'rev-parse', 'HEAD')).toBe(baseHead);
    expect(await git(repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(repo, 'outside.txt'))).toBe(false);
    expect(existsSync(join(repo, 'shell-ran'))).toBe(false);
    return t;
  }

  async function firstEdit(wakeId: string, createdAt: string, host: string) {
    const events = await transcript(wakeId);
    const edit = events.find((e) => (e.kind === 'tool_call' || e.kind === 'tool_result') && /CHANGELOG/.test(e.summary));
    expect(edit, JSON.stringify(events.slice(0, 20))).toBeDefined();
    expect(events.some((e) => e.kind === 'tool_result')).toBe(true);
    timings.push(`${host} ${Date.parse(edit.at) - Date.parse(createdAt)} ms`);
    return events;
  }

  it('claude-code: two tasks at once, each in a worktree of its own; the default policy edits there only, with no shell', async () => {
    const [m1, m2] = await Promise.all([anthropicStandIn({ steps: steps('touch shell-ran') }), anthropicStandIn({ steps: steps('touch shell-ran') })]);
    models.push(m1, m2);
    const a = await connect('claude-code', 'Writer One', { ...base, ANTHROPIC_BASE_URL: m1.url }, ['--env', 'DISABLE_AUTOUPDATER,CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC']);
    const b = await connect('claude-code', 'Writer Two', { ...base, ANTHROPIC_BASE_URL: m2.url }, ['--env', 'DISABLE_AUTOUPDATER,CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC']);
    expect(a.stdout).toMatch(/^work: default \(edits confined to the task's worktree/m);
    const [t1, t2] = await Promise.all([assign(a.plate, 'Add a CHANGELOG entry for 0.2'), assign(b.plate, 'Add the CHANGELOG entry, second try')]);
    const [w1, w2] = await Promise.all([ended(t1.task_id), ended(t2.task_id)]);
    expect(w1, JSON.stringify(w1)).toMatchObject({ status: 'handled', host: 'claude-code' });
    expect(w2, JSON.stringify(w2)).toMatchObject({ status: 'handled', host: 'claude-code' });
    const handles = await Promise.all([a.plate, b.plate].map(async (p) => (await s.api('GET', `/v1/agents/${p}`)).body.handle as string));
    const r1 = await checkWork(t1.task_id, w1, handles[0]!);
    const r2 = await checkWork(t2.task_id, w2, handles[1]!);
    expect(r1.worktree.path).not.toBe(r2.worktree.path);
    expect(r1.worktree.branch).not.toBe(r2.worktree.branch);
    for (const [m, r] of [[m1, r1], [m2, r2]] as const) {
      expect(m.workdir).toBe(r.worktree.path);
      // The write into the base folder was refused by Claude Code, and Bash was not there to run.
      expect(m.toolResults[1]?.output, JSON.stringify(m.toolResults)).toMatch(/permission|denied|not allowed|haven't granted/i);
      expect(m.toolResults[2]?.output, JSON.stringify(m.toolResults)).toMatch(/No such tool|not available|disabled|permission/i);
      expect(existsSync(join(r.worktree.path, 'shell-ran'))).toBe(false);
    }
    const events = await firstEdit(w1.wake_id, t1.created_at, 'claude-code');
    expect(events.some((e) => e.kind === 'tool_call' && e.tool === 'Write')).toBe(true);
    expect(events.some((e) => e.kind === 'result')).toBe(true);
    await firstEdit(w2.wake_id, t2.created_at, 'claude-code (second)');
  }, 300_000);

  it('codex and gemini: each task in its own worktree, the write outside refused; a hostile title gives a plain branch', async () => {
    const [openai, gemini] = await Promise.all([openaiStandIn({ steps: steps(`touch ${join(repo, 'shell-ran')}`) }), geminiStandIn({ steps: steps('touch shell-ran') })]);
    models.push(openai, gemini);
    writeCodexConfig(home.dir, openai.url);
    const c = await connect('codex', 'Writer Codex', base);
    const g = await connect('gemini', 'Writer Gemini', { ...base, GOOGLE_GEMINI_BASE_URL: gemini.url });
    const marker = join(home.dir, 'pwned');
    const [tc, tg] = await Promise.all([assign(c.plate, 'Add a CHANGELOG entry for 0.2 (codex)'), assign(g.plate, `--upload-pack=touch ${marker} ../../escape $(touch ${marker})`)]);
    const [wc, wg] = await Promise.all([ended(tc.task_id), ended(tg.task_id)]);
    expect(wc, JSON.stringify(wc)).toMatchObject({ status: 'handled', host: 'codex' });
    expect(wg, JSON.stringify(wg)).toMatchObject({ status: 'handled', host: 'gemini' });
    const handle = async (p: string) => (await s.api('GET', `/v1/agents/${p}`)).body.handle as string;
    const rc = await checkWork(tc.task_id, wc, await handle(c.plate));
    const rg = await checkWork(tg.task_id, wg, await handle(g.plate));
    expect(rc.worktree.path).not.toBe(rg.worktree.path);
    expect(rg.worktree.branch).toMatch(/^rooms\/[a-z0-9]+-upload-pack-touch-/);
    expect(existsSync(marker)).toBe(false);
    // Codex: its sandbox refused the write and the command into the base folder.
    expect(openai.toolResults[1]?.output ?? '', JSON.stringify(openai.toolResults)).toMatch(/Read-only file system|outside of the project|rejected/i);
    // Gemini: "Path not in workspace", and no shell tool in auto_edit.
    expect(gemini.toolResults[1]?.output ?? '', JSON.stringify(gemini.toolResults)).toMatch(/not in workspace/i);
    expect(gemini.toolResults[2]?.output ?? '', JSON.stringify(gemini.toolResults)).toMatch(/not found|not available|unknown/i);
    expect(existsSync(join(rg.worktree.path, 'shell-ran'))).toBe(false);
    await firstEdit(wc.wake_id, tc.created_at, 'codex');
    const ge = await firstEdit(wg.wake_id, tg.created_at, 'gemini');
    expect(ge.some((e) => e.kind === 'tool_call' && e.tool === 'write_file')).toBe(true);
  }, 300_000);

  it('claude-code: changes requested on a line wake the agent in the same worktree, and its new commit lands on the branch', async () => {
    const m1 = await anthropicStandIn({ steps: [{ kind: 'write', path: 'CHANGELOG.md', content: '## 0.2\n- worktrees\n' }] });
    models.push(m1);
    const env = { ...base, ANTHROPIC_BASE_URL: m1.url };
    const a = await connect('claude-code', 'Reviewed Writer', env, ['--env', 'DISABLE_AUTOUPDATER,CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC']);
    const t = await assign(a.plate, 'Write the CHANGELOG for review');
    const w1 = await ended(t.task_id);
    expect(w1.status, JSON.stringify(w1)).toBe('handled');
    const rec = (await s.api('GET', `/v1/rooms/${room}/tasks/${t.task_id}`)).body;
    const ch = (await s.api('GET', `/v1/rooms/${room}/tasks/${t.task_id}/changes`)).body;
    expect(ch.files.map((f: any) => f.path)).toEqual(['CHANGELOG.md']);
    expect(ch.files[0].hunks[0].lines[0]).toEqual({ kind: 'add', new: 1, text: '## 0.2' });
    // The model the next run talks to writes the fix; the runner is pointed at it as its owner would.
    const m2 = await anthropicStandIn({ steps: [{ kind: 'write', path: 'CHANGELOG.md', content: '## 0.2 (2026-12-02)\n- worktrees\n' }] });
    models.push(m2);
    const runner = (await s.api('GET', `/v1/agents/${a.plate}/runners/claude-code`)).body;
    const keys = { HOME: home.dir, ANTHROPIC_API_KEY: 'sk-ant-standin-key', ANTHROPIC_BASE_URL: m2.url, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, { preset: 'claude -p', command: runner.command, env: keys })).status).toBe(200);
    const review = await s.api('POST', `/v1/rooms/${room}/tasks/${t.task_id}/reviews`, { verdict: 'request_changes', comments: [{ path: 'CHANGELOG.md', line: 1, body: 'Add the date.' }] });
    expect(review.status, JSON.stringify(review.body)).toBe(201);
    const msg = ((await s.api('GET', `/v1/rooms/${room}/messages`)).body.messages as any[]).find((x) => x.message_id === review.body.message_id);
    expect(msg.body).toContain('CHANGELOG.md:1\n> ## 0.2\nAdd the date.');
    const end = Date.now() + 200_000;
    let w2: any;
    while (Date.now() < end) {
      w2 = ((await s.api('GET', `/v1/rooms/${room}/wakes?message_id=${review.body.message_id}`)).body.wakes as any[])[0];
      if (w2 && (w2.status === 'handled' || w2.status === 'failed')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(w2, JSON.stringify(w2)).toMatchObject({ status: 'handled', task_id: t.task_id });
    expect(m2.workdir).toBe(rec.worktree.path);
    const log = await git(repo, 'log', '--format=%B%x00', `${baseHead}..${rec.worktree.branch}`);
    expect(log.split('\0').filter((x) => x.trim())).toHaveLength(2);
    expect(log).toContain(w2.wake_id);
    expect(await git(repo, 'show', `${rec.worktree.branch}:CHANGELOG.md`)).toContain('(2026-12-02)');
    expect(await git(repo, 'status', '--porcelain')).toBe('');
  }, 300_000);

  it('claude-code with connect --work room: the write is denied, and the transcript says so', async () => {
    const m = await anthropicStandIn({ steps: [{ kind: 'write', path: 'CHANGELOG.md', content: 'no\n' }] });
    models.push(m);
    const a = await connect('claude-code', 'Talker', { ...base, ANTHROPIC_BASE_URL: m.url }, ['--work', 'room', '--env', 'DISABLE_AUTOUPDATER,CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC']);
    expect(a.stdout).toMatch(/^work: room \(the room's tools only/m);
    expect((await s.api('GET', `/v1/agents/${a.plate}/runners/claude-code`)).body.work).toBe('room');
    const t = await assign(a.plate, 'Only talk about the CHANGELOG');
    const w = await ended(t.task_id);
    expect(w.status, JSON.stringify(w)).toBe('handled');
    const rec = (await s.api('GET', `/v1/rooms/${room}/tasks/${t.task_id}`)).body;
    expect(existsSync(join(rec.worktree.path, 'CHANGELOG.md'))).toBe(false);
    expect(m.toolResults[0]?.output, JSON.stringify(m.toolResults)).toMatch(/permission|haven't granted/i);
    const events = await transcript(w.wake_id);
    expect(events.some((e) => (e.kind === 'error' || e.kind === 'tool_result') && /CHANGELOG|Write/.test(`${e.tool ?? ''} ${e.summary}`) && /permission|denied|granted/i.test(e.summary)), JSON.stringify(events)).toBe(true);
    // Nothing was left to commit.
    expect(await git(rec.worktree.path, 'rev-parse', 'HEAD')).toBe(baseHead);
  }, 300_000);
});
