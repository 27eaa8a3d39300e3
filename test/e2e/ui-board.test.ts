import { describe, it, expect, beforeAll } from 'vitest';
import type { Page } from 'playwright-core';
import { ok, fails, type TestAgent } from '../helpers/server.js';
import { browserSkip, uiForFile, screenshot, signedInPage } from '../helpers/browser.js';

/** These checks are about assignee lanes: the board's "By assignee" grouping, kept per browser (docs/ui.md). */
async function byAssignee<T extends { context: import('playwright-core').BrowserContext; page: Page }>(ui: T): Promise<T> {
  await ui.context.addInitScript("localStorage.setItem('ar.board.group', 'assignee')");
  await ui.page.evaluate("localStorage.setItem('ar.board.group', 'assignee')");
  return ui;
}

const skip = browserSkip();

const card = (page: Page, title: string) => page.locator('article.card', { has: page.getByRole('heading', { name: title, exact: true }) });
const lane = (page: Page, handle: string) => page.getByRole('region', { name: `Lane ${handle}` });

describe.skipIf(!!skip)('UI: the board', () => {
  const ui = uiForFile();
  let builder: TestAgent;
  let tester: TestAgent;
  let roomId: string;

  beforeAll(async () => {
    builder = await ui.s.agent('Builder');
    tester = await ui.s.agent('Tester');
    roomId = await ui.s.room('Release');
    await ui.s.join(roomId, builder.plate);
    await ui.s.join(roomId, tester.plate);
  });

  async function createTask(page: Page, title: string, assignee: TestAgent, dependsOn?: string) {
    await page.getByRole('button', { name: 'New task' }).click();
    const d = page.getByRole('dialog', { name: 'New task' });
    await d.getByLabel('Title').fill(title);
    await d.getByLabel('Definition of done').fill(`${title} is finished and checked`);
    await d.getByLabel('Assignee').selectOption(assignee.plate);
    if (dependsOn) {
      await d.getByLabel('Find a task to depend on').fill(dependsOn);
      await d.getByRole('button', { name: new RegExp(`^\\+ ${dependsOn}`) }).click();
      await d.getByRole('list', { name: 'Chosen dependencies' }).getByText(dependsOn).waitFor();
    }
    await d.getByRole('button', { name: 'Create task' }).click();
    return d;
  }

  it('creates tasks with a dependency; an agent claims and completes one and the successor unblocks on screen', async () => {
    const { context, page } = await byAssignee(await signedInPage(ui.browser, ui.s.running.loginUrl()));
    await page.goto(`${ui.s.baseUrl}/#/rooms/${roomId}/board`);
    await page.getByText('No tasks yet').waitFor();
    const d1 = await createTask(page, 'Build the release', builder);
    await d1.waitFor({ state: 'detached' });
    const d2 = await createTask(page, 'Test the release', tester, 'Build the release');
    await d2.waitFor({ state: 'detached' });

    const successor = card(page, 'Test the release');
    await successor.waitFor();
    // Compact cards: the successor waits on its prerequisite, which holds it up.
    expect(await successor.textContent()).toContain('waits on “Build the release”');
    expect(await card(page, 'Build the release').textContent()).toContain('holds up “Test the release”');
    expect(await lane(page, tester.handle).textContent()).toContain('Test the release');

    const b = await ui.s.connect(builder.credential);
    const board = await ok(b, 'read_board', { room: roomId });
    const build = board.lanes.flatMap((l: any) => l.tasks).find((t: any) => t.title === 'Build the release');
    expect(build.consent_state).toBe('auto');
    // The tester cannot claim yet; the board said why.
    const t = await ui.s.connect(tester.credential);
    const test = board.lanes.flatMap((l: any) => l.tasks).find((x: any) => x.title === 'Test the release');
    expect((await fails(t, 'claim_task', { task_id: test.task_id })).reason).toBe('blocked_by_deps');

    await ok(b, 'claim_task', { task_id: build.task_id });
    const buildCard = card(page, 'Build the release');
    await expect.poll(() => buildCard.locator('.status-badge').textContent(), { timeout: 10_000 }).toBe('doing');
    await expect.poll(() => buildCard.textContent()).toContain('working: Builder'); // the lease holder, by name, never an id
    expect(await buildCard.textContent()).not.toContain('#');
    await screenshot(page, 'board-doing');

    await ok(b, 'complete_task', { task_id: build.task_id, status: 'done', summary: 'built v1.2', handoff_notes: 'Artifacts are in dist/; run npm test first.', result_ref: 'dist/app.tgz' });
    const done = page.getByRole('region', { name: 'Lane Done' });
    await expect.poll(() => done.textContent(), { timeout: 10_000 }).toContain('Build the release');
    // The detail panel holds the handoff notes and the result.
    await done.locator('article.card').first().click();
    const detail = page.getByRole('dialog', { name: 'Task: Build the release' });
    await expect.poll(() => detail.textContent()).toContain('Artifacts are in dist/; run npm test first.');
    expect(await detail.textContent()).toContain('built v1.2');
    await page.keyboard.press('Escape');
    await detail.waitFor({ state: 'detached' });
    await expect.poll(() => successor.textContent()).not.toContain('waits on');
    await ok(t, 'claim_task', { task_id: test.task_id });
    await expect.poll(() => successor.locator('.status-badge').textContent(), { timeout: 10_000 }).toBe('doing');

    // Filters: by status and by assignee.
    await page.getByLabel('Status').selectOption('done');
    await expect.poll(() => page.locator('article.card').count()).toBe(1);
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Assignee', { exact: true }).selectOption(tester.plate);
    await expect.poll(() => page.locator('section.lane').count()).toBe(2); // the tester's lane and Done
    await page.getByLabel('Assignee', { exact: true }).selectOption('');
    await screenshot(page, 'board');
    await context.close();
  });

  it('the Trust toggle refuses, then allows, a cross-owner assignment; reassignment follows the role', async () => {
    const bob = await ui.s.owner('Bob');
    const helper = await ui.s.agent('Helper', { token: bob.token });
    const { context, page } = await byAssignee(await signedInPage(ui.browser, ui.s.running.loginUrl()));
    await page.goto(`${ui.s.baseUrl}/#/rooms/${roomId}/members`);
    await page.getByLabel('Add a human').selectOption(bob.owner_id);
    await page.getByLabel('Role').selectOption('member');
    await page.getByRole('button', { name: 'Add human' }).click();
    await page.getByText('Bob', { exact: true }).waitFor();
    await ui.s.join(roomId, helper.plate, bob.token);
    await page.goto(`${ui.s.baseUrl}/#/rooms/${roomId}/board`);

    // The room header (one fixed place) shows the signed-in owner's Trust toggle, Off, naming the other owner.
    const toggle = page.getByRole('switch', { name: /Trust/ });
    await toggle.waitFor();
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
    const effect = page.locator('.room-head .trust-effect');
    await expect.poll(() => effect.textContent()).toContain('Let Bob’s agents assign work to and wake my agents in this room.');
    expect(await effect.textContent()).toContain('Now off');

    // Ada assigning Bob's agent is refused while Bob's Trust is off: the dialog says so.
    const d = await createTask(page, 'Review the docs', helper);
    await d.getByRole('alert').waitFor();
    expect(await d.getByRole('alert').textContent()).toContain('Trust');
    await d.getByRole('button', { name: 'Close', exact: true }).click();

    // Bob's agent assigning Ada's agent: refused, then allowed once Ada turns Trust on.
    const h = await ui.s.connect(helper.credential);
    const refused = await fails(h, 'create_task', { room: roomId, title: 'Fix the flaky test', definition_of_done: 'green 10 runs in a row', assignee: builder.handle });
    expect(refused.code).toBe('CONSENT_REQUIRED');
    await toggle.click();
    await page.getByRole('dialog', { name: 'Turn Trust on?' }).getByRole('button', { name: 'Turn Trust on' }).click();
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
    expect(await effect.textContent()).toContain('Now on');
    await ok(h, 'create_task', { room: roomId, title: 'Fix the flaky test', definition_of_done: 'green 10 runs in a row', assignee: builder.handle });
    const flaky = card(page, 'Fix the flaky test');
    await flaky.waitFor({ timeout: 10_000 });
    expect(await flaky.textContent()).toContain('trusted');
    await screenshot(page, 'board-cross-owner');

    // Ada is a room admin in a cross-owner room: she may reassign.
    await flaky.click();
    const fd = page.getByRole('dialog', { name: 'Task: Fix the flaky test' });
    await fd.getByRole('button', { name: 'Reassign' }).click();
    const rd = page.getByRole('dialog', { name: /Reassign/ });
    await rd.getByLabel('New assignee').selectOption(tester.plate);
    await rd.getByRole('button', { name: 'Reassign' }).click();
    await rd.waitFor({ state: 'detached' });
    await page.keyboard.press('Escape');
    await fd.waitFor({ state: 'detached' });
    await expect.poll(() => lane(page, tester.handle).textContent(), { timeout: 10_000 }).toContain('Fix the flaky test');

    // Bob is a member: the action is hidden, one sentence says who may, and the server refuses too.
    const link = await ui.s.api('POST', '/v1/login-links', {}, bob.token);
    const bobUi = await byAssignee(await signedInPage(ui.browser, link.body.url));
    await bobUi.page.goto(`${ui.s.baseUrl}/#/rooms/${roomId}/board`);
    const bobCard = card(bobUi.page, 'Fix the flaky test');
    await bobCard.waitFor();
    await bobUi.page.getByText('In a cross-owner room only a room admin may reassign.').waitFor();
    await bobCard.click();
    const bobDetail = bobUi.page.getByRole('dialog', { name: 'Task: Fix the flaky test' });
    await bobDetail.getByText('Done when').waitFor();
    expect(await bobDetail.getByRole('button', { name: 'Reassign' }).count()).toBe(0);
    expect(await bobDetail.textContent()).toContain('In a cross-owner room only a room admin may reassign.');
    await bobUi.page.keyboard.press('Escape');
    await screenshot(bobUi.page, 'board-member-view');
    const taskId = await flaky.getAttribute('data-task');
    const r = await ui.s.api('POST', `/v1/rooms/${roomId}/tasks/${taskId}/assign`, { assignee: builder.plate }, bob.token);
    expect(r.status).toBe(403);
    await bobUi.context.close();
    await context.close();
  });
});
