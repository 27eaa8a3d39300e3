import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, it, expect } from 'vitest';
import { accessible, browserSkip, uiForFile, openSignedIn, TAKE_SCREENSHOTS } from '../helpers/browser.js';
import { getRunner } from '../../src-main/core/wakes/runners.js';

/**
 * A second owner's path to a wakeable agent, all in the window (docs/ui.md "A second owner"):
 * the connect dialog tells her what to do here rather than `agent-rooms connect` (which would
 * act as the primary owner); the primary owner allows her runners after a confirmation that
 * says what it means; her page changes at once, without a reload; she sets her runner's
 * environment value, which is shown back as its name and "set" only. The Trust switch says both
 * directions.
 */
const skip = browserSkip();
// docs/ui.md's screenshots of these places are rewritten only when asked (UPDATE_DOCS_IMG=1), as in ui-second-pass.test.ts.
const DOCS_IMG = fileURLToPath(new URL(process.env.UPDATE_DOCS_IMG === '1' ? '../../docs/img/' : '../../test-results/docs-img/', import.meta.url));
const docShot = async (page: Page, name: string) => {
  if (process.env.UPDATE_DOCS_IMG === '1' || TAKE_SCREENSHOTS) {
    mkdirSync(DOCS_IMG, { recursive: true });
    await page.screenshot({ path: join(DOCS_IMG, `${name}-1280.png`) });
  }
};
const SECRET = 'sk-bea-test-0123456789abcdef';

describe.skipIf(!!skip)('UI: a second owner', () => {
  const ui = uiForFile({ rateLimit: { perSecond: 0, burst: 0 } }, undefined, { oneRenderer: true });

  it('is allowed runners with a confirmation, sees her page change live and sets a runner env value shown masked', async () => {
    const bea = await ui.s.owner('Bea Second');
    const helper = await ui.s.agent('Helper', { token: bea.token });
    const her = await openSignedIn(ui.browser, ui.s, `agents/${helper.plate}`, { ownerId: bea.owner_id, bypassCSP: true });
    const note = her.page.getByText(/only the primary owner, or an owner it allowed, may configure them/);
    await note.waitFor();
    expect(await note.textContent()).not.toContain('Ask the primary owner');
    // The connect lines are hers to follow by hand: no `agent-rooms connect`, which would act as the primary owner.
    const panel = her.page.getByRole('tabpanel');
    expect(await panel.textContent()).toContain('is for the primary owner of this machine');
    expect(await panel.locator('pre').textContent()).not.toMatch(/agent-rooms connect/);

    // The primary owner allows her runners: a confirmation first, saying what it means.
    const ada = await openSignedIn(ui.browser, ui.s, 'agents');
    const people = ada.page.getByRole('region', { name: 'People on this server' });
    const box = people.locator(`li[data-owner="${bea.owner_id}"]`).getByRole('checkbox');
    await box.click();
    const ask = ada.page.getByRole('dialog', { name: 'Let Bea Second run commands on this machine?' });
    expect(await ask.textContent()).toContain('as your user account');
    expect(await ask.textContent()).toContain('read and change your files, keys and tokens');
    await ask.getByRole('button', { name: 'Keep them off' }).click();
    expect(await box.isChecked()).toBe(false);
    expect((await ui.s.api('GET', '/v1/me', undefined, bea.token)).body.allow_runners).toBe(false);
    await box.click();
    await docShot(ada.page, 'people-allow-runners');
    await ada.page.getByRole('dialog', { name: /^Let Bea Second/ }).getByRole('button', { name: 'Allow Bea Second’s runners' }).click();
    await expect.poll(() => box.isChecked(), { timeout: 15_000 }).toBe(true);

    // Her page changes without a reload.
    await expect.poll(() => note.count(), { timeout: 10_000 }).toBe(0);
    expect(await her.page.getByRole('tabpanel').textContent()).toContain('Then make it wake on a mention');

    // She sets an environment value of her codex runner: typed once, then only its name and "set".
    const form = her.page.getByRole('form', { name: /^codex/ });
    const env = form.getByRole('group', { name: 'Environment values' });
    await env.getByLabel('Variable', { exact: true }).fill('OPENAI_API_KEY');
    expect(await env.getByLabel('Value', { exact: true }).getAttribute('type')).toBe('password');
    await env.getByLabel('Value', { exact: true }).fill(SECRET);
    await env.getByRole('button', { name: 'Set variable' }).click();
    await form.getByRole('button', { name: 'Save runner' }).click();
    await form.getByText('Saved.').waitFor();
    const list = env.getByRole('list', { name: 'Environment variables' });
    await expect.poll(() => list.getByRole('listitem').filter({ hasText: 'OPENAI_API_KEY' }).textContent()).toContain('set');
    expect((await ui.s.api('GET', `/v1/agents/${helper.plate}/runners/codex`, undefined, bea.token)).body.env).toEqual({ OPENAI_API_KEY: '***' });
    expect(getRunner(ui.s.running.core.db, helper.plate, 'codex')!.env).toEqual({ OPENAI_API_KEY: SECRET });

    // A second variable keeps the first as saved (the window never had its value).
    await env.getByLabel('Variable', { exact: true }).fill('OPENAI_BASE_URL');
    await env.getByLabel('Value', { exact: true }).fill('http://127.0.0.1:9/v1');
    await env.getByRole('button', { name: 'Set variable' }).click();
    await form.getByRole('button', { name: 'Save runner' }).click();
    await expect.poll(() => getRunner(ui.s.running.core.db, helper.plate, 'codex')!.env).toEqual({ OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    await her.page.reload();
    await her.page.getByRole('form', { name: /^codex/ }).getByRole('list', { name: 'Environment variables' }).waitFor();
    expect(await her.page.locator('body').textContent()).not.toContain(SECRET);
    expect(await her.page.content()).not.toContain(SECRET);
    await accessible(her.page);
    await her.page.getByRole('form', { name: /^codex/ }).getByRole('group', { name: 'Environment values' }).scrollIntoViewIfNeeded();
    await docShot(her.page, 'agent-runner-env');
    await her.context.close();
    await ada.context.close();
  });

  it('Trust says both directions, and a mention that waits on Trust says so in its reason', async () => {
    const cy = await ui.s.owner('Cy Third');
    const room = await ui.s.room('Shared work');
    expect((await ui.s.api('POST', `/v1/rooms/${room}/members`, { owner_id: cy.owner_id, role: 'member' })).status).toBeLessThan(300);
    await ui.s.api('POST', `/v1/rooms/${room}/invitation/accept`, {}, cy.token);
    const mine = await ui.s.agent('Reviewer2');
    await ui.s.join(room, mine.plate);
    const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/chat`);
    const effect = page.locator('.room-head .trust-effect');
    await expect.poll(() => effect.textContent()).toContain('Trust lets Cy Third and Cy Third’s agents wake your agents with mentions and assign them work, in this room only.');
    expect(await effect.textContent()).toContain('Now off: neither Cy Third nor Cy Third’s agents can; their mentions wait in your agents’ inboxes and they are told so.');
    await page.getByRole('switch', { name: /Trust/ }).click();
    const d = page.getByRole('dialog', { name: 'Turn Trust on?' });
    expect(await d.textContent()).toContain('Cy Third and Cy Third’s agents will be able to wake your agents with mentions and assign them work');
    expect(await d.textContent()).toContain('While it is off, neither can');
    await d.getByRole('button', { name: 'Keep it off' }).click();
    await context.close();

    // Cy's mention of Ada's agent: the answer tells its author it waits on Ada's Trust.
    const m = await ui.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'please review', mention_targets: [mine.handle] }, cy.token);
    expect(m.body.wakes[0]).toMatchObject({ status: 'inbox', reason_code: 'trust_off' });
    expect(m.body.wakes[0].reason).toMatch(/^Ada Owner has not turned Trust on in this room/);
    // Under her message, in her window, she reads the same.
    const cyUi = await openSignedIn(ui.browser, ui.s, `rooms/${room}/chat`, { ownerId: cy.owner_id });
    const log = cyUi.page.getByRole('log', { name: 'Messages' });
    await expect.poll(() => log.textContent(), { timeout: 15_000 }).toContain('waiting in the inbox: Ada Owner has not turned Trust on in this room');
    await cyUi.context.close();
  });
});
