import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestAgent } from '../helpers/server.js';
import { accessible, browserSkip, uiForFile, openSignedIn, screenshot } from '../helpers/browser.js';
import { ok } from '../helpers/server.js';

/**
 * Reviews from the task page (docs/review.md "Reviews", "Overlaps"): a person comments on a line of
 * the Changes tab's diff by the keyboard, writes a body and asks for changes; the server stores the
 * review with the comment and the quoted line, and the room gets the message. Request changes on a
 * done task shows the follow-up task's link, and the follow-up's page links back. Two open tasks
 * whose worktrees change the same file: the board's cards say so, and each task page lists the other.
 */
const skip = browserSkip();
const RUNNER_AGENT = fileURLToPath(new URL('../fixtures/runner-agent.mjs', import.meta.url));
const exec = promisify(execFile);
const git = async (cwd: string, ...args: string[]) => (await exec('git', ['-c', 'user.name=Ada', '-c', 'user.email=ada@example.invalid', ...args], { cwd })).stdout.trim();

interface Review {
  review_id: string;
  verdict: string;
  body: string | null;
  comments: Array<{ path: string; line: number; body: string; quoted: string }>;
  follow_up_task_id: string | null;
}

describe.skipIf(!!skip)('UI: reviews, reservations and overlaps on the task page', () => {
  const ui = uiForFile({ rateLimit: { perSecond: 0, burst: 0 } }, undefined, { oneRenderer: true });
  let dir: string;
  let repo: string;
  let agent: TestAgent;
  let room: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-rooms-ui-review-'));
    repo = join(dir, 'repo');
    mkdirSync(repo);
    await git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README.md'), '# app\n');
    await git(repo, 'add', 'README.md');
    await git(repo, 'commit', '-q', '-m', 'first');
    agent = await ui.s.agent('Writer');
    room = await ui.s.room('Review');
    await ui.s.join(room, agent.plate);
    expect((await ui.s.api('PUT', `/v1/rooms/${room}/workspace`, { local_path: repo })).status).toBe(200);
    const runner = { command: process.execPath, args: [RUNNER_AGENT], env: { RUNNER_LOG: join(dir, 'runner.log') } };
    expect((await ui.s.api('PUT', `/v1/agents/${agent.plate}/runners/codex`, runner)).status).toBe(200);
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const taskOf = async (id: string) => (await ui.s.api('GET', `/v1/rooms/${room}/tasks/${id}`)).body;
  const changesOf = async (id: string) => (await ui.s.api('GET', `/v1/rooms/${room}/tasks/${id}/changes`)).body as { files: Array<{ path: string }> };
  const reviewsOf = async (id: string) => ((await ui.s.api('GET', `/v1/rooms/${room}/tasks/${id}/reviews`)).body as { reviews: Review[] }).reviews;

  async function assign(title: string): Promise<string> {
    const r = await ui.s.api('POST', `/v1/rooms/${room}/tasks`, { title, definition_of_done: 'it is written', assignee: agent.plate });
    expect(r.status).toBe(201);
    return r.body.task_id as string;
  }

  /** The task's first run has ended (what it wrote is committed) and its changes are there; the file it wrote. */
  async function written(id: string, status: string): Promise<string> {
    await expect.poll(async () => (await taskOf(id)).status, { timeout: 30_000 }).toBe(status);
    const ended = async () => ((await ui.s.api('GET', `/v1/rooms/${room}/wakes?task_id=${id}`)).body.wakes as Array<{ wake_id: string; status: string; trigger: string }>).filter((w) => w.status === 'handled' && w.trigger === 'assignment');
    await expect.poll(async () => (await ended()).length, { timeout: 30_000 }).toBeGreaterThan(0);
    await expect.poll(async () => (await changesOf(id)).files.length, { timeout: 30_000 }).toBeGreaterThan(0);
    return `work/${(await ended())[0]!.wake_id}.txt`;
  }

  it('a line comment by the keyboard, a body, Request changes: the server stores it with the quoted line and the room gets the message', async () => {
    const title = 'write the intro and keep open';
    const id = await assign(title);
    const path = await written(id, 'doing');
    const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/tasks/${id}/changes`, { bypassCSP: true });
    const d = page.getByRole('dialog', { name: `Task: ${title}` });
    const panel = d.getByRole('tabpanel', { name: 'Changes' });
    const diff = panel.getByRole('region', { name: 'Diff' });
    await diff.locator('.dl').first().waitFor({ timeout: 30_000 });
    // The keyboard path: the line's comment button takes the focus and Enter adds the comment.
    const button = diff.getByRole('button', { name: `Comment on ${path} line 1` });
    await button.focus();
    await page.keyboard.press('Enter');
    const review = panel.getByRole('region', { name: 'Review', exact: true });
    const box = review.getByRole('textbox', { name: `Comment on ${path} line 1` });
    await box.waitFor();
    await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.getAttribute("aria-label")')).toBe(`Comment on ${path} line 1`);
    expect(await review.getByRole('list', { name: 'Pending comments' }).textContent()).toContain(`${path}:1`);
    expect(await review.locator('.quoted').first().textContent()).toBe(title);
    await page.keyboard.type('say what the intro is for');
    await review.getByRole('textbox', { name: 'Review comment' }).fill('Nearly there.');
    await screenshot(page, 'task-review-pending');
    await accessible(page);

    await review.getByRole('button', { name: 'Request changes' }).click();
    const sent = review.getByTestId('review-sent');
    await sent.waitFor({ timeout: 30_000 });
    expect(await sent.textContent()).toContain('Review sent: the agent was asked in the room');
    // The pending comments are cleared.
    expect(await review.getByRole('list', { name: 'Pending comments' }).count()).toBe(0);

    const stored = await reviewsOf(id);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ verdict: 'request_changes', body: 'Nearly there.' });
    expect(stored[0]!.comments).toEqual([expect.objectContaining({ path, line: 1, body: 'say what the intro is for', quoted: title })]);
    const messages = (await ui.s.api('GET', `/v1/rooms/${room}/messages?limit=50`)).body.messages as Array<{ body: string }>;
    expect(messages.some((m) => m.body.includes(`${path}:1`))).toBe(true);
    // The earlier review is listed, by you, with the comment and its quoted line.
    const listed = panel.getByTestId('reviews');
    await expect.poll(() => listed.textContent()).toContain(`${path}:1`);
    expect(await listed.textContent()).toMatch(/Requested changes by you/);
    expect(await listed.locator('.quoted').first().textContent()).toBe(title);
    // The Overview tab lists it too.
    await d.getByRole('tab', { name: 'Overview' }).click();
    const overview = d.getByRole('tabpanel', { name: 'Overview' }).getByTestId('reviews');
    await expect.poll(() => overview.textContent()).toContain(`${path}:1`);
    await context.close();
  }, 120_000);

  it('Request changes on a done task shows the follow-up task’s link; the follow-up says whose it is', async () => {
    const title = 'write the changelog';
    const id = await assign(title);
    const path = await written(id, 'done');
    const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/tasks/${id}/changes`, { bypassCSP: true });
    const d = page.getByRole('dialog', { name: `Task: ${title}` });
    const panel = d.getByRole('tabpanel', { name: 'Changes' });
    const button = panel.getByRole('region', { name: 'Diff' }).getByRole('button', { name: `Comment on ${path} line 1` });
    await button.waitFor({ timeout: 30_000 });
    await button.click();
    const review = panel.getByRole('region', { name: 'Review', exact: true });
    await review.getByRole('textbox', { name: `Comment on ${path} line 1` }).fill('add the date');
    await review.getByRole('button', { name: 'Request changes' }).click();
    const sent = review.getByTestId('review-sent');
    await sent.waitFor({ timeout: 30_000 });
    const stored = await reviewsOf(id);
    const followUp = stored[0]!.follow_up_task_id!;
    expect(followUp).toBeTruthy();
    const link = sent.getByRole('link', { name: 'Open the follow-up task' });
    expect(await link.getAttribute('href')).toBe(`#/rooms/${room}/tasks/${followUp}`);
    await link.click();
    const f = page.getByTestId('follow-up-of');
    await f.waitFor();
    expect(await f.getByRole('link').getAttribute('href')).toBe(`#/rooms/${room}/tasks/${id}`);
    await context.close();
  }, 120_000);

  it('a merged task’s card says merged', async () => {
    const title = 'write the licence';
    const id = await assign(title);
    await written(id, 'done');
    expect((await ui.s.api('POST', `/v1/rooms/${room}/tasks/${id}/merge`, { strategy: 'squash' })).status).toBe(200);
    const merged = (await taskOf(id)).merged as { commit: string };
    expect(merged.commit).toMatch(/^[0-9a-f]{40}$/);
    const { context, page } = await openSignedIn(ui.browser, ui.s, '', { bypassCSP: true });
    // The board's compact cards carry `merged` as the record does.
    const card = (await ui.s.api('GET', `/v1/rooms/${room}/board`)).body as { done: Array<{ task_id: string; merged?: unknown }> };
    expect(card.done.find((t) => t.task_id === id)?.merged).toEqual(merged);
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/board`);
    const badge = page.locator(`article[data-task="${id}"]`).getByTestId('card-merged');
    await badge.waitFor({ timeout: 30_000 });
    expect(await badge.textContent()).toBe('merged');
    await context.close();
  }, 120_000);

  it('two open tasks changing the same file: the board’s cards and each task page say so', async () => {
    const a = await assign('write part A and keep open');
    const b = await assign('write part B and keep open');
    await written(a, 'doing');
    await written(b, 'doing');
    for (const id of [a, b]) {
      const wt = (await taskOf(id)).worktree as { path: string };
      writeFileSync(join(wt.path, 'shared.txt'), `from ${id}\n`);
      await expect.poll(async () => (await changesOf(id)).files.map((x) => x.path), { timeout: 30_000 }).toContain('shared.txt');
    }
    await changesOf(a);
    await expect.poll(async () => ((await taskOf(a)).overlaps ?? []).map((o: { task_id: string }) => o.task_id), { timeout: 30_000 }).toContain(b);
    await expect.poll(async () => ((await taskOf(b)).overlaps ?? []).map((o: { task_id: string }) => o.task_id), { timeout: 30_000 }).toContain(a);

    const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/board`, { bypassCSP: true });
    const card = page.locator(`article[data-task="${a}"]`);
    const marker = card.getByTestId('card-overlaps');
    await marker.waitFor({ timeout: 30_000 });
    expect(await marker.textContent()).toContain('overlaps with 1 task');
    expect(await marker.textContent()).toContain('write part B and keep open');
    expect(await marker.textContent()).toContain('shared.txt');
    await screenshot(page, 'board-overlaps');
    await card.click();
    const note = page.getByRole('dialog', { name: 'Task: write part A and keep open' }).getByTestId('overlaps-note');
    await note.waitFor();
    const other = note.getByRole('link', { name: 'write part B and keep open' });
    expect(await other.getAttribute('href')).toBe(`#/rooms/${room}/tasks/${b}`);
    expect(await note.textContent()).toContain('shared.txt');

    // Another agent reserves the shared file: the Changes tab says so beside the file, in the list and at its header.
    const keeper = await ui.s.agent('Keeper');
    await ui.s.join(room, keeper.plate);
    const held = await ok<{ reservations: Array<{ expires_at: string }> }>(await ui.s.connect(keeper.credential), 'reserve_paths', { room, paths: ['shared.txt'], exclusive: true, reason: 'one file at a time' });
    expect(held.reservations).toHaveLength(1);
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/tasks/${a}/changes`);
    const panel = page.getByRole('dialog', { name: 'Task: write part A and keep open' }).getByRole('tabpanel', { name: 'Changes' });
    const item = panel.getByRole('navigation', { name: 'Changed files' }).getByRole('listitem').filter({ hasText: 'shared.txt' });
    await expect.poll(() => item.textContent(), { timeout: 30_000 }).toMatch(/reserved by @\S+ \(exclusive\) until \S/);
    const header = panel.getByRole('region', { name: 'Diff' }).locator('.df-head[data-path="shared.txt"]');
    await panel.getByRole('navigation', { name: 'Changed files' }).getByRole('button', { name: 'shared.txt' }).click();
    await expect.poll(() => header.textContent()).toContain('(exclusive) until');
    await screenshot(page, 'task-changes-reserved');
    await accessible(page);
    await context.close();
  }, 120_000);
});

