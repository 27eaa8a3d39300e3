import { describe, it, expect, beforeAll } from 'vitest';
import { ok, type TestAgent } from '../helpers/server.js';
import { browserSkip, uiForFile, screenshot, signedInPage } from '../helpers/browser.js';

const skip = browserSkip();

/** The Reservations tab and the board card's reserved paths, in Chromium (issue 19). */
describe.skipIf(!!skip)('UI: path reservations', () => {
  const ui = uiForFile();
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

    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/rooms/${roomId}/board`);
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
