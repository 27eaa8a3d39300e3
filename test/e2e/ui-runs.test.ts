import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Request } from 'playwright-core';
import type { TestAgent } from '../helpers/server.js';
import { accessible, browserSkip, uiForFile, openSignedIn, screenshot } from '../helpers/browser.js';

/**
 * A task's runs on its page (docs/wakes.md "Live runs"), as a person follows one: an agent whose runner
 * prints Claude Code's stream-json slowly (test/fixtures/stream-json-agent.mjs) is given a task;
 * its page shows the run working, with its elapsed time and its transcript growing live, read
 * after the last event held and never again from the start; Stop ends it, and it is listed as
 * an earlier run that failed, with its reason and its transcript. The runner editor's Work
 * choice is saved, and a refusal is shown in the server's words.
 */
const skip = browserSkip();
/** Lines the run prints at once after the gate: more than the page shows at a time (500). */
const BURST = 600;
const STREAM_AGENT = fileURLToPath(new URL('../fixtures/stream-json-agent.mjs', import.meta.url));

/** The system git, spawned asynchronously (a synchronous child would hold the server's event loop in this process). */
async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await promisify(execFile)('git', ['-c', 'user.name=Ada', '-c', 'user.email=ada@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd })).stdout;
}

describe.skipIf(!!skip)('UI: a task’s runs', () => {
  const ui = uiForFile({ rateLimit: { perSecond: 0, burst: 0 } }, undefined, { oneRenderer: true });
  let dir: string;
  let repo: string;
  let agent: TestAgent;
  let room: string;
  const gate = () => join(dir, 'gate');
  const streamLog = () => join(dir, 'stream.json');
  /** The agent's runner: the fixture, told where its gate and log are. */
  async function putRunner() {
    // The flags say what the script prints, as they would for `claude -p` (the fixture itself ignores them).
    const runner = { command: process.execPath, args: [STREAM_AGENT, '--output-format', 'stream-json', '--verbose'], env: { STREAM_GATE: gate(), STREAM_LOG: streamLog(), STREAM_BURST: String(BURST) } };
    expect((await ui.s.api('PUT', `/v1/agents/${agent.plate}/runners/claude-code`, runner)).status).toBe(200);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-rooms-ui-runs-'));
    repo = join(dir, 'repo');
    mkdirSync(repo);
    await git(repo, 'init', '-q');
    writeFileSync(join(repo, 'README.md'), '# app\n');
    await git(repo, 'add', 'README.md');
    await git(repo, 'commit', '-q', '-m', 'first');
    agent = await ui.s.agent('Streamer');
    room = await ui.s.room('Runs');
    await ui.s.join(room, agent.plate);
    expect((await ui.s.api('PUT', `/v1/rooms/${room}/workspace`, { local_path: repo })).status).toBe(200);
    await putRunner();
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the runner editor saves the Work choice, and shows the server’s words when it refuses one', async () => {
    const { context, page } = await openSignedIn(ui.browser, ui.s, `agents/${agent.plate}`, { bypassCSP: true });
    const form = page.getByRole('form', { name: /^claude-code/ });
    const work = form.getByRole('group', { name: /^Work/ });
    await work.waitFor();
    // Each choice says what it allows, in plain words.
    expect(await work.textContent()).toContain('can talk, claim and report, but not edit files');
    expect(await work.textContent()).toContain('only inside the task’s worktree; no shell commands');
    expect(await work.textContent()).toContain('inside the host’s own sandbox');
    expect(await work.getByRole('radio', { name: /^Default/ }).isChecked()).toBe(true);
    // The editor never sees the env's values: it names them, and a save from here keeps them.
    const envList = form.getByRole('list', { name: 'Environment variables' });
    for (const k of ['STREAM_BURST', 'STREAM_GATE', 'STREAM_LOG']) expect(await envList.getByRole('listitem').filter({ hasText: k }).textContent()).toContain('set');
    expect(await form.getByRole('group', { name: 'Environment values' }).textContent()).toContain('never shown again');
    await work.getByRole('radio', { name: /^Read and edit files/ }).check();
    await form.getByRole('button', { name: 'Save runner' }).click();
    await form.getByText('Saved.').waitFor();
    expect(Object.keys(((await ui.s.api('GET', `/v1/agents/${agent.plate}/runners/claude-code`)).body as { env: object }).env)).toEqual(['STREAM_GATE', 'STREAM_LOG', 'STREAM_BURST']);
    const saved = async () => ((await ui.s.api('GET', `/v1/agents/${agent.plate}/runners/claude-code`)).body as { work?: string | null }).work;
    expect(await saved()).toBe('edit');
    await page.reload();
    expect(await page.getByRole('form', { name: /^claude-code/ }).getByRole('radio', { name: /^Read and edit files/ }).isChecked()).toBe(true);
    // A choice the server refuses is not saved, and the window says why in the server's words: the cursor
    // preset's edit and shell flags are not checked (src-main/core/wakes/sandbox.ts), so it refuses both.
    const cursor = page.getByRole('form', { name: /^cursor/ });
    await cursor.getByRole('radio', { name: /^Also run commands/ }).check();
    const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().includes('/runners/cursor')), cursor.getByRole('button', { name: 'Save runner' }).click()]);
    expect(answer.status()).toBeGreaterThanOrEqual(400);
    const refusal = ((await answer.json()) as { error: { message: string } }).error.message;
    const alert = cursor.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain(refusal);
    await screenshot(page, 'runner-work-refused');
    await accessible(page);
    expect(((await ui.s.api('GET', `/v1/agents/${agent.plate}/runners`)).body.runners as Array<{ host: string }>).map((r) => r.host)).not.toContain('cursor');
    const again = page.getByRole('form', { name: /^claude-code/ });
    // Back to Default (null on the server) for the run below.
    await again.getByRole('radio', { name: /^Default/ }).check();
    await again.getByRole('button', { name: 'Save runner' }).click();
    await expect.poll(saved).toBeNull();
    await context.close();
  });

  it('a running run: who, elapsed time, its transcript live, a quiet spell, Stop; then the earlier run with its reason and transcript', async () => {
    // The editor's saves above kept the runner's env; it is set again for a fresh gate of this run.
    await putRunner();
    const task = (await ui.s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'Tidy the readme', definition_of_done: 'the readme reads well', assignee: agent.handle })).body as { task_id: string };
    const { context, page } = await openSignedIn(ui.browser, ui.s, '', { bypassCSP: true });
    // The clock is the page's own, so a minute and a half of silence passes in a moment.
    await page.clock.install();
    const transcriptReads: string[] = [];
    const transcriptBodies: Array<Promise<string>> = [];
    page.on('request', (r: Request) => {
      if (r.url().includes('/transcript')) transcriptReads.push(r.url());
    });
    page.on('response', (r) => {
      if (r.url().includes('/transcript')) transcriptBodies.push(r.text().catch(() => ''));
    });
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/tasks/${task.task_id}`);
    const d = page.getByRole('dialog', { name: 'Task: Tidy the readme' });
    await d.waitFor();
    const runs = d.getByRole('region', { name: 'Runs', exact: true });
    await runs.getByRole('heading', { name: 'Runs', exact: true }).waitFor();
    const now = runs.getByRole('article', { name: new RegExp(`^Running now: ${literal(agent.handle)} \\(claude-code\\)`) });
    await now.waitFor({ timeout: 20_000 });
    const clock = now.getByTestId('run-clock');
    await expect.poll(() => clock.textContent()).toMatch(/running for \d+ s/);
    const first = await clock.textContent();
    await expect.poll(() => clock.textContent(), { timeout: 5_000 }).not.toBe(first);

    // The first events, then more while the page is open: they arrive without a reload.
    const tx = now.getByRole('list', { name: /^Transcript of the run of/ });
    await expect.poll(() => tx.textContent(), { timeout: 15_000 }).toContain('Reading the task first.');
    await expect.poll(() => tx.locator('.tx-tool').allTextContents(), { timeout: 15_000 }).toContainEqual(expect.stringContaining('read_task'));
    writeFileSync(gate(), '');
    await expect.poll(() => tx.textContent(), { timeout: 15_000 }).toContain('Waiting for the review now.');
    // A burst of 600 lines is read in a few pages, not one read per event, and the page shows the latest 500.
    expect(transcriptReads.length).toBeLessThan(40);
    await expect.poll(() => tx.locator('li').count()).toBe(500);
    expect(await tx.locator('li').first().textContent()).not.toContain('Reading the task first.');
    const earlierEvents = now.getByRole('button', { name: /^Show earlier events \(\d+ more\)$/ });
    await earlierEvents.click();
    await expect.poll(() => tx.locator('li').count()).toBeGreaterThan(BURST);
    await earlierEvents.waitFor({ state: 'detached' });
    expect(await tx.locator('.tx-tool').allTextContents()).toContainEqual(expect.stringContaining('Edit'));
    expect(await now.getByTestId('run-last').textContent()).toContain('Waiting for the review now.');
    // Events come in order, each once.
    const texts = await tx.locator('li').allTextContents();
    const order = ['Reading the task first.', 'Connecting back', 'overloaded', 'step 1 of', `step ${BURST} of`, 'Waiting for the review now.'].map((t) => texts.findIndex((x) => x.includes(t)));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(texts.filter((x) => x.includes('Reading the task first.'))).toHaveLength(1);
    // An error the host reported is shown as one.
    const err = tx.locator('li[data-kind="error"]', { hasText: 'overloaded: retrying in 2 s' });
    await err.waitFor();
    expect(await colorOf(err)).not.toBe(await colorOf(tx.locator('li[data-kind="text"]').first()));
    const wakeId = ((await ui.s.api('GET', `/v1/rooms/${room}/wakes?task_id=${task.task_id}`)).body.wakes as Array<{ wake_id: string; status: string }>).find((w) => w.status === 'running')!.wake_id;
    // The page read the transcript from its start (until it held an event), then only what followed the last event it held.
    const afters = transcriptReads.filter((u) => u.includes(wakeId)).map((u) => Number(new URL(u).searchParams.get('after') ?? -1));
    expect(afters.length).toBeGreaterThan(1);
    expect(afters).toEqual([...afters].sort((a, b) => a - b));
    expect(afters[afters.length - 1]).toBeGreaterThan(0);
    // The credential in the MCP URL the run printed is nowhere on the page.
    const key = (JSON.parse(readFileSync(streamLog(), 'utf8')) as { key: string | null }).key;
    expect(key).toMatch(/^ark_/);
    expect(await page.content()).not.toContain(key);
    for (const body of await Promise.all(transcriptBodies)) expect(body).not.toContain(key);

    // A minute and a half without output: the run says so instead of only "running".
    await page.clock.fastForward(95_000);
    await expect.poll(() => clock.textContent(), { timeout: 10_000 }).toMatch(/no output for (9\d|1\d\d) s/);
    await screenshot(page, 'task-runs-running');
    await accessible(page);

    await now.getByRole('button', { name: 'Stop' }).click();
    await now.waitFor({ state: 'detached', timeout: 15_000 });
    await runs.getByText('No run is working on this task now.').waitFor();
    const earlier = runs.getByRole('list', { name: 'Earlier runs' });
    const stopped = earlier.getByRole('listitem').filter({ hasText: 'stopped by' }).first();
    await stopped.waitFor();
    expect(await stopped.getAttribute('data-status')).toBe('failed');
    expect(await stopped.textContent()).toMatch(/stopped by Ada Owner/);
    expect(await stopped.textContent()).toMatch(/took \d+ (s|min)/);
    await stopped.getByRole('button', { name: 'Show transcript' }).click();
    const old = stopped.getByRole('list', { name: /^Transcript of the run of/ });
    // The run's events are here already (it was followed): the first 500, from its start.
    await expect.poll(() => old.locator('li').count()).toBe(500);
    expect(await old.locator('li').first().textContent()).toContain('Reading the task first.');
    // Opened afresh, an ended run's transcript is read from its start a page at a time ("Show more").
    await page.reload();
    const again = page.getByRole('region', { name: 'Runs', exact: true }).getByRole('list', { name: 'Earlier runs' }).getByRole('listitem').filter({ hasText: 'stopped by' }).first();
    await again.getByRole('button', { name: 'Show transcript' }).click();
    const paged = again.getByRole('list', { name: /^Transcript of the run of/ });
    await expect.poll(() => paged.locator('li').count()).toBe(200);
    expect(await paged.locator('li').first().textContent()).toContain('Reading the task first.');
    const more = again.getByRole('button', { name: 'Show more' });
    for (let pages = 0; pages < 10 && (await more.count()); pages++) await more.click();
    await more.waitFor({ state: 'detached' });
    await expect.poll(() => paged.textContent()).toContain('Waiting for the review now.');
    const all = await paged.locator('li').allTextContents();
    expect(all.filter((x) => x.includes(`step ${BURST} of`))).toHaveLength(1);

    // The task's worktree, as the task record says it.
    const full = (await ui.s.api('GET', `/v1/rooms/${room}/tasks/${task.task_id}`)).body as { worktree?: { branch: string; base_branch: string; base_commit: string; path: string } | null; worktree_reason?: string | null };
    const wt = runs.getByTestId('worktree');
    if (full.worktree) {
      await expect.poll(() => wt.textContent()).toContain(full.worktree.branch);
      expect(await wt.textContent()).toContain(full.worktree.base_branch);
      expect(await wt.textContent()).toContain(full.worktree.base_commit.slice(0, 8));
      expect(await wt.textContent()).toContain(full.worktree.path);
      await wt.getByRole('button', { name: 'Copy folder path' }).waitFor();
    } else if (full.worktree_reason) {
      await expect.poll(() => wt.textContent()).toContain(full.worktree_reason);
    }
    await screenshot(page, 'task-runs-ended');
    await accessible(page);
    await context.close();
  }, 90_000);
});

/** An element's text colour as painted (this file is compiled without the DOM's types). */
function colorOf(l: Locator): Promise<string> {
  return l.evaluate((e) => (globalThis as unknown as { getComputedStyle(el: unknown): { color: string } }).getComputedStyle(e).color);
}


function literal(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
