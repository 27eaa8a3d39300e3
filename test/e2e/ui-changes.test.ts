import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Locator } from 'playwright-core';
import type { TestAgent } from '../helpers/server.js';
import { accessible, browserSkip, uiForFile, openSignedIn, screenshot, settled } from '../helpers/browser.js';

/**
 * A task's work reviewed and merged from its page (docs/review.md, docs/ui.md "Changes"): an agent
 * whose runner is the fixture agent (test/fixtures/runner-agent.mjs) writes a file in its task's
 * worktree of a real git repository; the task page's Changes tab shows the base and head, the
 * file with its counts and its lines; Push branch pushes to a bare remote; a squash merge from the
 * window lands the file on the base branch (checked with git) and the task says it was merged.
 * A merge into a dirty folder is refused with the server's message, the folder and the paths, and
 * the folder's bytes are unchanged. A 10,000-line change renders as fast as a 100-line one, with a
 * bounded number of rows in the DOM.
 */
const skip = browserSkip();
const RUNNER_AGENT = fileURLToPath(new URL('../fixtures/runner-agent.mjs', import.meta.url));
const exec = promisify(execFile);
const git = async (cwd: string, ...args: string[]) => (await exec('git', ['-c', 'user.name=Ada', '-c', 'user.email=ada@example.invalid', ...args], { cwd })).stdout.trim();

interface Changes {
  base?: { branch: string; commit: string };
  head?: { branch: string; commit: string };
  files: Array<{ path: string; additions: number; deletions: number }>;
  totals?: { files: number; additions: number; deletions: number };
  reason?: string;
}

describe.skipIf(!!skip)('UI: a task’s changes, pushed and merged from its page', () => {
  const ui = uiForFile({ rateLimit: { perSecond: 0, burst: 0 } }, undefined, { oneRenderer: true });
  let dir: string;
  let repo: string;
  let remote: string;
  let agent: TestAgent;
  let room: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-rooms-ui-changes-'));
    repo = join(dir, 'repo');
    remote = join(dir, 'remote.git');
    mkdirSync(repo);
    await git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README.md'), '# app\n');
    await git(repo, 'add', 'README.md');
    await git(repo, 'commit', '-q', '-m', 'first');
    await git(dir, 'init', '-q', '--bare', remote);
    await git(repo, 'remote', 'add', 'origin', remote);
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
  const changesOf = async (id: string) => (await ui.s.api('GET', `/v1/rooms/${room}/tasks/${id}/changes`)).body as Changes;

  /** A task given to the agent; its id. */
  async function assign(title: string): Promise<string> {
    const r = await ui.s.api('POST', `/v1/rooms/${room}/tasks`, { title, definition_of_done: 'it is written', assignee: agent.plate });
    expect(r.status).toBe(201);
    return r.body.task_id as string;
  }

  /** The task is done, its run has ended (what it left is committed), and its changes are there to read; the file its run wrote. */
  async function finished(id: string): Promise<string> {
    await expect.poll(async () => (await taskOf(id)).status, { timeout: 30_000 }).toBe('done');
    const ended = async () => ((await ui.s.api('GET', `/v1/rooms/${room}/wakes?task_id=${id}`)).body.wakes as Array<{ wake_id: string; status: string }>).filter((w) => w.status === 'handled');
    await expect.poll(async () => (await ended()).length, { timeout: 30_000 }).toBeGreaterThan(0);
    await expect.poll(async () => (await changesOf(id)).files.length, { timeout: 30_000 }).toBeGreaterThan(0);
    return `work/${(await ended())[0]!.wake_id}.txt`;
  }

  async function doneTask(title: string): Promise<{ id: string; path: string }> {
    const id = await assign(title);
    return { id, path: await finished(id) };
  }

  it('the Changes tab shows the work live; Push branch; a squash merge lands it on the base branch and the task says so', async () => {
    const title = 'write the release notes slowly';
    const id = await assign(title);
    // Opened while the run works: the file appears without a reload.
    const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/tasks/${id}`, { bypassCSP: true });
    const d = page.getByRole('dialog', { name: `Task: ${title}` });
    await d.waitFor();
    const tabs = d.getByRole('tablist', { name: 'Task page' });
    const overview = tabs.getByRole('tab', { name: 'Overview' });
    const changesTab = tabs.getByRole('tab', { name: 'Changes' });
    expect(await overview.getAttribute('aria-selected')).toBe('true');
    // The keyboard moves between the tabs; the address carries the tab.
    await overview.focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => changesTab.getAttribute('aria-selected')).toBe('true');
    expect(await page.evaluate('document.activeElement && document.activeElement.textContent')).toBe('Changes');
    expect(await page.evaluate('location.hash')).toBe(`#/rooms/${room}/tasks/${id}/changes`);
    const panel = d.getByRole('tabpanel', { name: 'Changes' });
    const files = panel.getByRole('navigation', { name: 'Changed files' });
    await files.waitFor({ timeout: 30_000 });
    const path = await finished(id);
    await files.getByRole('button', { name: path }).waitFor();

    // Base and head as the server says, the counts, the file and its one line.
    const c = await changesOf(id);
    await expect.poll(() => panel.getByTestId('changes-refs').textContent()).toContain(`${c.head!.branch}@${c.head!.commit.slice(0, 8)}`);
    expect(await panel.getByTestId('changes-refs').textContent()).toContain(`main@${c.base!.commit.slice(0, 8)}`);
    expect(await panel.getByTestId('changes-totals').textContent()).toMatch(/^1 file changed, \+1 −0/);
    expect(await files.getByRole('listitem').textContent()).toMatch(/added\s*\+1 −0/);
    const diff = panel.getByRole('region', { name: 'Diff' });
    const line = diff.locator('.dl').first();
    await line.waitFor();
    expect(await line.getAttribute('data-kind')).toBe('add');
    expect(await line.locator('.mk').textContent()).toBe('+');
    expect(await line.locator('.ln').allTextContents()).toEqual(['', '1']);
    expect(await line.locator('.dt').textContent()).toBe(title);
    expect(await diff.locator('.df-head').textContent()).toContain(path);
    // A file of the list, chosen by Enter, takes the reader (and the focus) to its diff.
    await files.getByRole('button', { name: path }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.dataset.path')).toBe(path);
    await screenshot(page, 'task-changes');
    await accessible(page);

    // Push branch: to the workspace's remote (a bare repository here, so no compare link).
    await panel.getByRole('button', { name: 'Push branch' }).click();
    const pushed = panel.getByRole('status').filter({ hasText: 'Pushed' });
    await pushed.waitFor();
    expect(await pushed.textContent()).toContain(`Pushed ${c.head!.branch} to origin.`);
    expect(await git(remote, 'rev-parse', `refs/heads/${c.head!.branch}`)).toBe(c.head!.commit);

    // Merge, squashed, deleting the branch.
    await panel.getByRole('button', { name: 'Merge', exact: true }).click();
    const md = page.getByRole('dialog', { name: `Merge “${title}”` });
    await md.getByRole('radio', { name: /^Squash/ }).check();
    await md.getByRole('checkbox', { name: 'Delete the branch after merging' }).check();
    await md.getByRole('button', { name: 'Merge into main' }).click();
    await md.waitFor({ state: 'detached', timeout: 30_000 });
    const merged = (await taskOf(id)).merged as { commit: string; by: string; at: string };
    expect(merged.commit).toMatch(/^[0-9a-f]{40}$/);
    await expect.poll(() => d.getByTestId('merge-notice').textContent()).toBe(`Merged as ${merged.commit.slice(0, 8)}.`);
    expect(await d.getByTestId('merged-note').textContent()).toMatch(new RegExp(`Merged into main as ${merged.commit.slice(0, 8)} by you `));
    // The base branch has the file, as one commit with one parent (squashed), and the branch is gone.
    expect(await git(repo, 'rev-parse', 'main')).toBe(merged.commit);
    expect(await git(repo, 'show', `main:${path}`)).toBe(title);
    expect((await git(repo, 'log', '-1', '--format=%P', 'main')).split(' ')).toHaveLength(1);
    expect(await git(repo, 'branch', '--list', c.head!.branch)).toBe('');
    expect(readFileSync(join(repo, path), 'utf8')).toBe(`${title}\n`);
    // Nothing to merge any more: no button; the Changes tab says why it has nothing to show.
    expect(await d.getByRole('button', { name: 'Merge', exact: true }).count()).toBe(0);
    await panel.getByTestId('changes-reason').waitFor();
    await screenshot(page, 'task-merged');
    // A reload says the same: merged, by whom, when.
    await page.reload();
    await expect.poll(() => page.getByTestId('merged-note').textContent()).toMatch(new RegExp(`as ${merged.commit.slice(0, 8)} by you `));
    await accessible(page);
    await context.close();
  }, 120_000);

  it('a merge into a dirty folder is refused: the message, the folder and the paths, the folder’s bytes unchanged; a member is told who may merge', async () => {
    const title = 'write the second part';
    const { id, path } = await doneTask(title);
    const before = await git(repo, 'rev-parse', 'main');
    const readme = join(repo, 'README.md');
    writeFileSync(readme, '# app\n\nan edit nobody committed\n');
    const bytes = readFileSync(readme);
    const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/tasks/${id}/changes`, { bypassCSP: true });
    const d = page.getByRole('dialog', { name: `Task: ${title}` });
    const panel = d.getByRole('tabpanel', { name: 'Changes' });
    await panel.getByRole('navigation', { name: 'Changed files' }).getByRole('button', { name: path }).waitFor();
    await panel.getByRole('button', { name: 'Merge', exact: true }).click();
    const md = page.getByRole('dialog', { name: `Merge “${title}”` });
    expect(await md.getByRole('radio', { name: /^Merge commit/ }).isChecked()).toBe(true);
    const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(`/tasks/${id}/merge`)), md.getByRole('button', { name: 'Merge into main' }).click()]);
    expect(answer.status()).toBe(409);
    const err = ((await answer.json()) as { error: { code: string; reason: string; message: string; details: { paths: string[]; folder: string } } }).error;
    expect(err.code).toBe('CONFLICT');
    expect(err.reason).toBe('dirty');
    expect(err.details.paths).toContain('README.md');
    const alert = md.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain(err.message);
    expect(await alert.textContent()).toContain(`Folder: ${err.details.folder}`);
    expect(await alert.getByRole('list').getByRole('listitem').allTextContents()).toEqual(err.details.paths);
    expect(await alert.textContent()).toContain('the folder was left exactly as it was');
    await screenshot(page, 'task-merge-refused');
    await accessible(page);
    // The folder is as it was: the same bytes, the same base commit, the task not merged.
    expect(readFileSync(readme).equals(bytes)).toBe(true);
    expect(await git(repo, 'rev-parse', 'main')).toBe(before);
    expect(await git(repo, 'status', '--porcelain')).toBe('M README.md');
    expect((await taskOf(id)).merged).toBeNull();
    await md.getByRole('button', { name: 'Close', exact: true }).click();
    await md.waitFor({ state: 'detached' });
    await context.close();

    // Another owner, a plain member of the room: the reason instead of Merge and Push branch.
    const bea = await ui.s.owner('Bea');
    expect((await ui.s.api('POST', `/v1/rooms/${room}/members`, { owner_id: bea.owner_id, role: 'member' })).status).toBe(201);
    const hers = (await ui.s.api('GET', `/v1/rooms/${room}/tasks/${id}`, undefined, bea.token)).body as { denied_actions?: { merge?: { code: string; message: string } } };
    expect(hers.denied_actions?.merge).toBeTruthy();
    const b = await openSignedIn(ui.browser, ui.s, `rooms/${room}/tasks/${id}/changes`, { ownerId: bea.owner_id });
    const bPanel = b.page.getByRole('dialog', { name: `Task: ${title}` }).getByRole('tabpanel', { name: 'Changes' });
    await bPanel.getByTestId('merge-denied').waitFor();
    expect(await bPanel.getByTestId('merge-denied').textContent()).toBe(hers.denied_actions!.merge!.message);
    expect(await bPanel.getByRole('button', { name: 'Merge', exact: true }).count()).toBe(0);
    expect(await bPanel.getByRole('button', { name: 'Push branch' }).count()).toBe(0);
    await screenshot(b.page, 'task-merge-denied');
    await b.context.close();
    writeFileSync(readme, '# app\n');
  }, 120_000);

  it('a 10,000-line change shows as fast as a 100-line one, with a bounded number of rows in the DOM', async () => {
    const big = await doneTask('write 10000 lines of the log');
    const small = await doneTask('write 100 lines of the log');
    expect((await changesOf(big.id)).totals).toMatchObject({ files: 1, additions: 10_000, deletions: 0 });
    const { context, page } = await openSignedIn(ui.browser, ui.s, '', { bypassCSP: true });

    /** Opens the task's Changes tab once (its changes are read and held), then times going to it from Overview: the render alone. */
    async function timed(id: string, title: string): Promise<{ ms: number; rows: number }> {
      await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/tasks/${id}/changes`);
      const d = page.getByRole('dialog', { name: `Task: ${title}` });
      await d.getByRole('region', { name: 'Diff' }).locator('.dl').first().waitFor();
      await settled(page);
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        await d.getByRole('tab', { name: 'Overview' }).click();
        await d.getByRole('tabpanel', { name: 'Overview' }).waitFor();
        times.push(
          (await page.evaluate(`(async () => {
            const t0 = performance.now();
            document.getElementById('task-tab-changes').click();
            while (!document.querySelector('.diff .dl')) await new Promise((r) => requestAnimationFrame(r));
            return performance.now() - t0;
          })()`)) as number,
        );
      }
      const rows = await d.locator('.diff .dl').count();
      times.sort((a, b) => a - b);
      return { ms: times[2]!, rows };
    }

    const s = await timed(small.id, 'write 100 lines of the log');
    const b = await timed(big.id, 'write 10000 lines of the log');
    console.log(`Changes tab shown: 100 lines ${s.ms.toFixed(1)} ms (${s.rows} rows in the DOM), 10,000 lines ${b.ms.toFixed(1)} ms (${b.rows} rows)`);
    // Only the rows near the viewport are in the DOM: about as many for 10,000 lines as for 100.
    expect(b.rows).toBeGreaterThan(10);
    expect(b.rows).toBeLessThanOrEqual(Math.min(s.rows, 100) + 10);
    // The times are printed, not asserted: a busy machine must not fail this test; the row count is what stays bounded.

    // The reader reaches the last line, and the DOM stays bounded there too.
    const d = page.getByRole('dialog', { name: 'Task: write 10000 lines of the log' });
    const diff = d.getByRole('region', { name: 'Diff' });
    await diff.evaluate((el) => {
      (el as unknown as { scrollTop: number; scrollHeight: number }).scrollTop = (el as unknown as { scrollHeight: number }).scrollHeight;
    });
    await expect.poll(() => lastLine(diff)).toBe('line 10000 of 10000');
    await screenshot(page, 'task-changes-10k');
    expect(await diff.locator('.dl').count()).toBeLessThanOrEqual(Math.min(s.rows, 100) + 10);
    expect(await diff.locator('.dl').last().locator('.ln').allTextContents()).toEqual(['', '10000']);
    // On a phone nothing is cut off: the page sheet does not scroll sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => d.evaluate((el) => (el as unknown as { scrollWidth: number }).scrollWidth - (el as unknown as { clientWidth: number }).clientWidth)).toBeLessThanOrEqual(0);
    await screenshot(page, 'task-changes-390');
    await context.close();
  }, 120_000);
});

async function lastLine(diff: Locator): Promise<string | null> {
  return diff.locator('.dl .dt').last().textContent();
}

