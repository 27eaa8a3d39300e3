import { describe, it, expect, beforeAll } from 'vitest';
import { ok } from '../helpers/server.js';
import { browserSkip, uiForFile, signedInPage } from '../helpers/browser.js';

const skip = browserSkip();

/** The UI actions of issue 14 (docs/security.md): runner rights toggle, restore a deleted file, leave a room. */
describe.skipIf(!!skip)('UI: rights (issue 14)', () => {
  const ui = uiForFile();
  let bob: { owner_id: string; token: string };

  beforeAll(async () => {
    bob = await ui.s.owner('Bob Teammate');
  });

  const bobAllowed = async () => ((await ui.s.api('GET', '/v1/owners')).body.owners as any[]).find((o) => o.owner_id === bob.owner_id).allow_runners;

  it('the primary owner allows and forbids runners for another owner, after a warning', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/agents`);
    await page.getByRole('heading', { name: 'People on this server' }).waitFor();
    expect(await page.locator('#runner-right-warning').textContent()).toMatch(/run any command on this machine as your user account/);
    const box = page.locator(`[data-owner="${bob.owner_id}"]`).getByRole('checkbox');
    expect(await box.isChecked()).toBe(false);
    // The box follows the server: it turns once the PATCH succeeded.
    await box.click();
    await expect.poll(bobAllowed).toBe(true);
    await expect.poll(() => box.isChecked()).toBe(true);
    await box.click();
    await expect.poll(bobAllowed).toBe(false);
    await expect.poll(() => box.isChecked()).toBe(false);
    await context.close();

    // Bob sees no such list, and is told why he cannot configure runners.
    const link = await ui.s.api('POST', '/v1/login-links', {}, bob.token);
    const b = await signedInPage(ui.browser, link.body.url);
    const agent = await ui.s.agent('Bob ui agent', { token: bob.token });
    await b.page.goto(`${ui.s.baseUrl}/#/agents/${agent.plate}`);
    await b.page.getByText(/only the primary owner, or an owner it allowed, may configure them/).waitFor();
    expect(await b.page.getByRole('heading', { name: 'People on this server' }).count()).toBe(0);
    await b.context.close();
  });

  it('a deleted file can be restored from the Files view', async () => {
    const room = await ui.s.room('Restore room');
    const a = await ui.s.agent('Writer');
    await ui.s.join(room, a.plate);
    const c = await ui.s.connect(a.credential);
    await ok(c, 'write_file', { room, path: 'notes/keep.md', content: 'do not lose me' });
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/files`);
    const row = page.getByRole('row', { name: /keep\.md/ });
    await row.getByRole('button', { name: /Delete/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete file?' });
    expect(await dialog.textContent()).toMatch(/restored for 7 days/);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Restore notes/keep.md' }).click();
    await page.getByRole('row', { name: /keep\.md/ }).waitFor();
    expect((await ok(c, 'read_file', { room, path: 'notes/keep.md' })).content).toBe('do not lose me');
    await context.close();
  });

  it('a member leaves a room; the last admin must name another first', async () => {
    const room = await ui.s.room('Leave room');
    expect((await ui.s.api('POST', `/v1/rooms/${room}/members`, { owner_id: bob.owner_id, role: 'member' })).status).toBe(201);
    const link = await ui.s.api('POST', '/v1/login-links', {}, bob.token);
    const b = await signedInPage(ui.browser, link.body.url);
    await b.page.goto(`${ui.s.baseUrl}/#/rooms/${room}/members`);
    await b.page.getByRole('button', { name: 'Leave room' }).click();
    await b.page.getByRole('dialog', { name: 'Leave room?' }).getByRole('button', { name: 'Leave' }).click();
    await expect.poll(async () => (await ui.s.api('GET', `/v1/rooms/${room}`, undefined, bob.token)).status).toBe(404);
    await b.context.close();

    // The primary owner, now the only human, cannot leave.
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/members`);
    await page.getByText(/You are the only human here/).waitFor();
    expect(await page.getByRole('button', { name: 'Leave room' }).isDisabled()).toBe(true);
    // With Bob back as a member, it must name him admin first.
    expect((await ui.s.api('POST', `/v1/rooms/${room}/members`, { owner_id: bob.owner_id, role: 'member' })).status).toBe(201);
    await page.reload();
    const leave = page.getByRole('button', { name: 'Leave room' });
    await page.getByLabel(/name the new admin/).waitFor();
    expect(await leave.isDisabled()).toBe(true);
    await page.getByLabel(/name the new admin/).selectOption(bob.owner_id);
    await leave.click();
    await page.getByRole('dialog', { name: 'Leave room?' }).getByRole('button', { name: 'Leave' }).click();
    await expect.poll(async () => (await ui.s.api('GET', `/v1/rooms/${room}`, undefined, bob.token)).body.role).toBe('admin');
    await context.close();
  });
});
