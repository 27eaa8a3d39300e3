import { describe, it, expect, beforeAll } from 'vitest';
import { existsSync } from 'node:fs';
import { browserSkip, uiForFile, signedInPage } from '../helpers/browser.js';

const skip = browserSkip();

describe.skipIf(!!skip)('UI: the last backup and "Back up now"', () => {
  const ui = uiForFile();

  beforeAll(async () => {
      });

  it('the primary owner sees there is no backup yet, backs up with one click and sees it verified; another owner sees no backup controls', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    const panel = page.getByTestId('backup-panel');
    await expect.poll(() => panel.getByTestId('last-backup').textContent()).toContain('No backup yet');
    await panel.getByRole('button', { name: 'Back up now' }).click();
    await expect.poll(() => panel.getByRole('status').textContent()).toContain('Backed up and verified');
    await expect.poll(() => panel.getByTestId('last-backup').textContent()).toContain('Last backup just now');
    const st = await ui.s.api('GET', '/v1/backups');
    expect(st.body.last.kind).toBe('manual');
    expect(existsSync(st.body.last.path)).toBe(true);
    await context.close();

    const bob = await ui.s.owner('Bob');
    const link = await ui.s.api('POST', '/v1/login-links', {}, bob.token);
    const other = await signedInPage(ui.browser, link.body.url);
    await other.page.getByTestId('signed-in-as').waitFor();
    expect(await other.page.getByTestId('backup-panel').count()).toBe(0);
    await other.context.close();
  });
});
