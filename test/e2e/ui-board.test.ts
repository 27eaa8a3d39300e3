import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startTestServer, ok, fails, type TestServer, type TestAgent } from '../helpers/server.js';
import { browserSkip, uiForFile, screenshot, openSignedIn, type SignedInOptions } from '../helpers/browser.js';

/**
 * The board and what hangs off a task, on one server and one Chromium (docs/ui.md, "Tests"): the
 * board's lanes, dependencies and Trust; the task panel's buttons from allowed_actions; path
 * reservations on the tab and the card. The connection banner stops its server, so it has a
 * server (and home) of its own, in the same browser. Each test has a signed-in tab of its own (openSignedIn).
 */

/** These checks are about assignee lanes: the board's "By assignee" grouping, kept per browser (docs/ui.md). */
const byAssignee: SignedInOptions = { init: ["localStorage.setItem('ar.board.group', 'assignee')"] };

const skip = browserSkip();

const card = (page: Page, title: string) => page.locator('article.card', { has: page.getByRole('heading', { name: title, exact: true }) });
const lane = (page: Page, handle: string) => page.getByRole('region', { name: `Lane ${handle}` });

describe.skipIf(!!skip)('UI: the board, its task panel and reservations', () => {
  // The task panel's tests seed through many API calls: no rate limit on this server.
  const ui = uiForFile({ rateLimit: { perSecond: 0, burst: 0 } }, undefined, { oneRenderer: true });

  describe('UI: the board', () => {
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
      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${roomId}/board`, byAssignee);
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
      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${roomId}/members`, byAssignee);
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
      await expect.poll(() => effect.textContent()).toContain('Trust lets Bob and Bob’s agents wake your agents with mentions and assign them work, in this room only.');
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
      const bobUi = await openSignedIn(ui.browser, ui.s, `rooms/${roomId}/board`, { ...byAssignee, ownerId: bob.owner_id });
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

  /**
   * The task panel's buttons are the record's allowed_actions (docs/contract.md "Allowed
   * actions"): a plain member who created a task may archive it once finished, which the board
   * used to hide, and sees the server's reason for what it may not do.
   */
  describe('UI: buttons follow allowed_actions', () => {
    let bea: { owner_id: string; token: string };
    let worker: TestAgent;
    let room: string;

    beforeAll(async () => {
      bea = await ui.s.owner('Bea');
      // Bea's room, Bea's agent: the signed-in (primary) owner is a plain member there.
      room = await ui.s.room('Bea room', bea.token);
      const me = (await ui.s.api('GET', '/v1/me')).body;
      expect((await ui.s.api('POST', `/v1/rooms/${room}/members`, { owner_id: me.owner_id, role: 'member' }, bea.token)).status).toBe(201);
      worker = await ui.s.agent('Worker', { token: bea.token });
      await ui.s.join(room, worker.plate, bea.token);
      expect((await ui.s.api('PUT', `/v1/rooms/${room}/consent`, { mode: 'trust_room' }, bea.token)).status).toBe(200);
    });

    async function doneTask(title: string, token?: string): Promise<string> {
      const t = await ui.s.api('POST', `/v1/rooms/${room}/tasks`, { title, definition_of_done: 'done', assignee: worker.handle }, token);
      expect(t.status).toBe(201);
      const w = await ui.s.connect(worker.credential);
      await ok(w, 'claim_task', { task_id: t.body.task_id });
      await ok(w, 'complete_task', { task_id: t.body.task_id, status: 'done', handoff_notes: 'notes' });
      return t.body.task_id as string;
    }

    it('the creator, a plain member, archives its finished task; refused acts show the server’s reason', async () => {
      const mine = await doneTask('Mine to archive');
      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/tasks/${mine}`);
      const panel = page.getByTestId('task-detail');
      await panel.waitFor();
      const archive = panel.getByRole('button', { name: 'Archive', exact: true });
      await archive.waitFor();
      // Only what the record lists is a button: cancel and reassign are Bea's here.
      expect(await panel.getByRole('button', { name: 'Cancel task' }).count()).toBe(0);
      expect(await panel.getByRole('button', { name: 'Reassign' }).count()).toBe(0);
      const rec = (await ui.s.api('GET', `/v1/rooms/${room}/tasks/${mine}`)).body;
      expect(await panel.textContent()).toContain(Object.values(rec.denied_actions as Record<string, { message: string }>)[0]!.message);
      await archive.click();
      await panel.waitFor({ state: 'detached' });
      expect((await ui.s.api('GET', `/v1/rooms/${room}/tasks/${mine}`)).body.archived).toBe(true);

      // A task Bea created: the same member may not archive it, and is told who may.
      const hers = await doneTask('Bea’s own', bea.token);
      await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/tasks/${hers}`);
      const theirs = page.getByRole('dialog', { name: 'Task: Bea’s own' });
      await theirs.getByText('Only the owner of this room’s agents may reassign here.').waitFor();
      expect(await theirs.getByRole('button', { name: 'Archive', exact: true }).count()).toBe(0);
      await context.close();
    });
  });

  /** The Reservations tab and the board card's reserved paths, in Chromium (issue 19). */
  describe('UI: path reservations', () => {
    let agent: TestAgent;
    let roomId: string;

    beforeAll(async () => {
      agent = await ui.s.agent('Editor');
      roomId = await ui.s.room('Repo work');
      await ui.s.join(roomId, agent.plate);
    });

    it('shows who holds which paths for which task and until when, on the tab and the board card; an admin force-releases with a reason', async () => {
      const c = await ui.s.connect(agent.credential);
      const task = await ok(c, 'create_task', { room: roomId, title: 'Rewrite the router', definition_of_done: 'routes pass', assignee: agent.handle });
      await ok(c, 'claim_task', { task_id: task.task_id });
      const got = await ok(c, 'reserve_paths', { room: roomId, paths: ['src/api/**'], task_id: task.task_id, reason: 'router rewrite' });

      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${roomId}/board`);
      const card = page.locator('article.card', { has: page.getByRole('heading', { name: 'Rewrite the router', exact: true }) });
      await expect.poll(() => card.textContent(), { timeout: 10_000 }).toContain('src/api/**');

      await page.getByRole('link', { name: 'Reservations' }).click();
      const table = page.getByRole('table', { name: 'Active reservations' });
      const row = table.locator(`tr[data-reservation="${got.reservations[0].reservation_id}"]`);
      await row.waitFor();
      const text = (await row.textContent()) ?? '';
      expect(text).toContain('src/api/**');
      expect(text).toContain(agent.handle);
      expect(text).toContain('exclusive');
      expect(text).toContain('Rewrite the router');
      expect(text).toContain('router rewrite');
      expect(await row.locator('time').getAttribute('datetime')).toBe(got.reservations[0].expires_at);

      // A reservation made while the tab is open appears live.
      await ok(c, 'reserve_paths', { room: roomId, paths: ['docs/'], exclusive: false });
      await expect.poll(() => table.textContent(), { timeout: 10_000 }).toContain('docs/**');
      await screenshot(page, 'reservations-tab');

      await row.getByRole('button', { name: 'Force-release src/api/**' }).click();
      const dialog = page.getByRole('dialog', { name: 'Force-release the reservation' });
      await dialog.getByLabel('Reason').fill('the editor crashed');
      await dialog.getByRole('button', { name: 'Force-release' }).click();
      await dialog.waitFor({ state: 'detached' });
      await row.waitFor({ state: 'detached' });
      await expect.poll(() => page.getByRole('list', { name: 'Recently released' }).textContent()).toContain('the editor crashed');

      // The server agrees: the agent no longer holds it, and the record keeps the reason.
      expect((await ok(c, 'list_reservations', { room: roomId })).reservations.map((r: any) => r.pattern)).toEqual(['docs/**']);
      const view = await ui.s.api('GET', `/v1/rooms/${roomId}/reservations`);
      expect(view.body.released[0]).toMatchObject({ cause: 'force_released', reason: 'the editor crashed' });
      await context.close();
    });
  });

  describe('UI: the server goes away and comes back', () => {
    let home: string;
    let s: TestServer;

    beforeAll(async () => {
      home = mkdtempSync(join(tmpdir(), 'agent-rooms-stale-'));
      s = await startTestServer({ home });
    });
    afterAll(async () => {
      await s?.stop();
      rmSync(home, { recursive: true, force: true });
    });

    it('shows a banner, keeps the loaded board readable and marked stale, refuses changes clearly, and refreshes on reconnect', async () => {
      const a = await s.agent('Builder');
      const roomId = await s.room('Release');
      await s.join(roomId, a.plate);
      await s.api('POST', `/v1/rooms/${roomId}/tasks`, { title: 'Ship it', definition_of_done: 'shipped', assignee: a.plate });
      const { context, page } = await openSignedIn(ui.browser, s, `rooms/${roomId}/board`);
      await page.getByRole('heading', { name: 'Ship it' }).waitFor();
      await page.getByText('Live', { exact: true }).waitFor();
      const port = Number(new URL(s.baseUrl).port);

      await s.stop();
      const banner = page.getByTestId('connection-banner');
      await banner.waitFor({ timeout: 15_000 });
      expect(await banner.textContent()).toContain('Connection to the Agent Rooms server lost');
      // The loaded board stays, marked stale; switching tabs does not replace it with an error.
      expect(await page.getByRole('heading', { name: 'Ship it' }).isVisible()).toBe(true);
      expect(await page.locator('main#main').getAttribute('class')).toContain('stale');
      await page.getByRole('link', { name: 'Chat' }).click();
      await page.getByRole('link', { name: 'Board' }).click();
      await page.getByRole('heading', { name: 'Ship it' }).waitFor();
      // A change is refused with words, not a raw network error.
      await page.getByRole('button', { name: 'New task' }).click();
      const d = page.getByRole('dialog', { name: 'New task' });
      await d.getByLabel('Title').fill('While offline');
      await d.getByLabel('Definition of done').fill('never sent');
      await d.getByRole('button', { name: 'Create task' }).click();
      await expect.poll(() => d.getByRole('alert').textContent()).toContain('Not sent: the Agent Rooms server cannot be reached');
      await d.getByRole('button', { name: 'Close', exact: true }).click();
      await screenshot(page, 'issue16-stale');

      // Back on the same port and home: the banner goes and the board refreshes by itself.
      s = await startTestServer({ home, port });
      await banner.waitFor({ state: 'detached', timeout: 20_000 });
      expect(await page.locator('main#main').getAttribute('class')).not.toContain('stale');
      await s.api('POST', `/v1/rooms/${roomId}/tasks`, { title: 'After the restart', definition_of_done: 'seen live', assignee: a.plate });
      await page.getByRole('heading', { name: 'After the restart' }).waitFor({ timeout: 10_000 });
      await context.close();
    });
  });
});
