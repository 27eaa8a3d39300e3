/// <reference lib="dom" />
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { TestAgent } from '../helpers/server.js';
import { browserSkip, uiForFile, openSignedIn, screenshot } from '../helpers/browser.js';

/**
 * Mentions as a person types and follows them (issue 46, points 2, 5, 9 and 10; docs/ui.md
 * "Wake status per message", "Typed mentions", "Palette", "Top bar"): under each message, per
 * mentioned agent, what became of it, read from its wake (waiting in the inbox with its reason,
 * running with its elapsed time, failed with a one-line cause and Retry); a typed @name is a
 * mention that wakes a runner agent (test/fixtures/runner-agent.mjs), an unmatched @nobody is
 * marked and sending asks; "smok" finds "smoke" in the palette with "1 result"; no API words
 * on screen; the top bar fits at 1280 px after a backup.
 */
const skip = browserSkip();
const RUNNER_AGENT = fileURLToPath(new URL('../fixtures/runner-agent.mjs', import.meta.url));

describe.skipIf(!!skip)('UI: mentions as people type and follow them', () => {
  const ui = uiForFile({ rateLimit: { perSecond: 0, burst: 0 } }, undefined, { oneRenderer: true });
  let dir: string;
  let idle: TestAgent;
  let typist: TestAgent;
  let sleeper: TestAgent;
  let broken: TestAgent;
  let room: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-rooms-ui-mentions-'));
    idle = await ui.s.agent('Idler');
    typist = await ui.s.agent('Typist');
    sleeper = await ui.s.agent('Sleeper');
    broken = await ui.s.agent('Broken');
    room = await ui.s.room('Mentions');
    for (const a of [idle, typist, sleeper, broken]) await ui.s.join(room, a.plate);
    const runner = { command: process.execPath, args: [RUNNER_AGENT], env: { RUNNER_LOG: join(dir, 'runner.log') } };
    for (const a of [typist, sleeper]) expect((await ui.s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, runner)).status).toBe(200);
    // A runner whose command is on no PATH: its wake fails with ENOENT.
    expect((await ui.s.api('PUT', `/v1/agents/${broken.plate}/runners/gemini`, { command: 'no-such-host-cli-h3' })).status).toBe(200);
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const status = (page: Page, text: string, handle: string) =>
    page.locator('article.msg', { hasText: text }).getByRole('list', { name: 'What became of the mentions' }).getByRole('listitem').filter({ hasText: handle });

  it('a mention of an agent nothing can wake says "waiting in the inbox" with its reason, also after a reload', async () => {
    const sent = await ui.s.api('POST', `/v1/rooms/${room}/messages`, { body: `${idle.handle} please check the inbox`, mention_targets: [idle.handle] });
    expect(sent.status).toBe(201);
    const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}`);
    try {
      const row = status(page, 'please check the inbox', idle.handle);
      await expect.poll(() => row.getAttribute('data-status'), { timeout: 15_000 }).toBe('inbox');
      const text = await row.textContent();
      expect(text).toContain('waiting in the inbox');
      expect(text).toContain('no runner and no live channel session');
      expect(text).not.toContain('queued');
      await page.reload();
      await expect.poll(() => status(page, 'please check the inbox', idle.handle).getAttribute('data-status'), { timeout: 15_000 }).toBe('inbox');
    } finally {
      await context.close();
    }
  });

  it('a typed @name (not picked from the list) is a mention: it wakes the runner agent, which replies', async () => {
    const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}`);
    try {
      const box = page.getByRole('combobox', { name: 'Message the room' });
      // Typed as a person types the README's example, the whole handle never picked.
      await box.pressSequentially('@typist hello from the keyboard');
      expect(await page.getByRole('list', { name: 'Mentions that match no one or several' }).count()).toBe(0);
      await box.press('Enter');
      await page.locator('article.msg', { hasText: /reply: .*hello from the keyboard/ }).waitFor({ timeout: 30_000 });
      await expect.poll(() => status(page, 'hello from the keyboard', typist.handle).getAttribute('data-status'), { timeout: 20_000 }).toBe('handled');
      const msgs = (await ui.s.api('GET', `/v1/rooms/${room}/messages`)).body.messages as Array<{ body: string; mentions: Array<{ handle: string }> }>;
      expect(msgs.find((m) => m.body === '@typist hello from the keyboard')!.mentions.map((m) => m.handle)).toEqual([typist.handle]);
    } finally {
      await context.close();
    }
  });

  it('an unmatched @nobody is marked before sending, and sending asks: fix it, or send as plain text', async () => {
    const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}`);
    try {
      const box = page.getByRole('combobox', { name: 'Message the room' });
      await box.pressSequentially('@nobody are you there');
      const marks = page.getByRole('list', { name: 'Mentions that match no one or several' });
      await marks.waitFor();
      expect(await marks.textContent()).toContain('@nobody matches no one in this room');
      expect(await box.getAttribute('aria-invalid')).toBe('true');
      expect(await box.getAttribute('aria-describedby')).toBe(await marks.getAttribute('id'));
      await box.press('Enter');
      const ask = page.getByRole('dialog', { name: 'A mention matches no one' });
      await ask.waitFor();
      await ask.getByRole('button', { name: 'Fix it' }).click();
      await ask.waitFor({ state: 'detached' });
      expect(await box.inputValue()).toBe('@nobody are you there');
      expect(await page.evaluate(() => (document.activeElement as HTMLTextAreaElement | null)?.selectionEnd)).toBe('@nobody'.length);
      await box.press('End');
      await box.press('Enter');
      await ask.waitFor();
      await ask.getByRole('button', { name: 'Send as plain text' }).click();
      await page.locator('article.msg', { hasText: '@nobody are you there' }).waitFor();
      const msgs = (await ui.s.api('GET', `/v1/rooms/${room}/messages`)).body.messages as Array<{ body: string; mentions: unknown[] }>;
      expect(msgs.find((m) => m.body === '@nobody are you there')!.mentions).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a running wake says so with its elapsed time, ticking, and Stop ends it', async () => {
    const sent = await ui.s.api('POST', `/v1/rooms/${room}/messages`, { body: `${sleeper.handle} sleep`, mention_targets: [sleeper.handle] });
    expect(sent.status).toBe(201);
    const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}`);
    try {
      const row = status(page, `${sleeper.handle} sleep`, sleeper.handle);
      await expect.poll(() => row.getAttribute('data-status'), { timeout: 20_000 }).toBe('running');
      const clock = row.getByTestId('ws-elapsed');
      const first = await clock.textContent();
      expect(first).toMatch(/^running, \d+ s$/);
      await expect.poll(() => clock.textContent(), { timeout: 5_000 }).not.toBe(first);
      // Stop is there for the agent's owner: the run ends failed, saying who stopped it.
      await row.getByRole('button', { name: `Stop the wake of ${sleeper.handle}` }).click();
      await expect.poll(() => row.getAttribute('data-status'), { timeout: 20_000 }).toBe('failed');
      expect(await row.locator('.ws-cause').textContent()).toMatch(/^stopped by /);
    } finally {
      await context.close();
      // The run ends; the next tests need no sleeping runner.
      const w = (await ui.s.api('GET', `/v1/agents/${sleeper.plate}/wakes?status=running`)).body.wakes as Array<{ wake_id: string }>;
      for (const x of w) await ui.s.api('POST', `/v1/wakes/${x.wake_id}/stop`, {});
    }
  });

  it('a failed wake shows its one-line cause (which command, the PATH, the fix) and Retry', async () => {
    const sent = await ui.s.api('POST', `/v1/rooms/${room}/messages`, { body: `${broken.handle} build it`, mention_targets: [broken.handle] });
    expect(sent.status).toBe(201);
    const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}`);
    try {
      const row = status(page, `${broken.handle} build it`, broken.handle);
      await expect.poll(() => row.getAttribute('data-status'), { timeout: 20_000 }).toBe('failed');
      const cause = await row.locator('.ws-cause').textContent();
      expect(cause).toMatch(/^`no-such-host-cli-h3` was not found on the server's PATH \(.+\); install it or set the runner's command to its full path$/);
      expect(await row.textContent()).not.toMatch(/\n\s+at /);
      const retry = row.getByRole('button', { name: `Retry the wake of ${broken.handle}` });
      await retry.click();
      // The retry is a new wake of the same message: it fails again, and says so the same way.
      await expect
        .poll(async () => ((await ui.s.api('GET', `/v1/agents/${broken.plate}/wakes`)).body.wakes as Array<{ retry_of: string | null }>).filter((w) => w.retry_of).length, { timeout: 15_000 })
        .toBe(1);
      await expect.poll(() => row.getAttribute('data-status'), { timeout: 20_000 }).toBe('failed');
    } finally {
      await context.close();
    }
  });

  it('"smok" finds "smoke" in the palette, and one hit is "1 result"', async () => {
    expect((await ui.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'the smoke test is green' })).status).toBe(201);
    const { context, page } = await openSignedIn(ui.browser, ui.s, 'needs-you');
    try {
      await page.keyboard.press('Control+k');
      const dialog = page.getByRole('dialog', { name: 'Go to anything' });
      await dialog.getByRole('combobox').fill('smok');
      const results = dialog.getByRole('listbox', { name: 'Results' });
      await results.getByRole('option', { name: /the smoke test is green/ }).waitFor({ timeout: 10_000 });
      await expect.poll(() => dialog.textContent()).toContain('1 result');
      expect(await dialog.textContent()).not.toContain('1 results');
    } finally {
      await context.close();
    }
  });

  it('no API words on screen: files and errors in people’s words', async () => {
    const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/files`);
    try {
      await page.getByText('Choose files…').waitFor();
      const text = (await page.locator('body').textContent()) ?? '';
      for (const word of ['presigned', 'quarantined', 'allow_runners', 'RUNNERS_NOT_ALLOWED']) expect(text).not.toContain(word);
    } finally {
      await context.close();
    }
  });
  it('the top bar fits at 1280 px after a backup: nothing cut, the path shown whole', async () => {
    const { context, page } = await openSignedIn(ui.browser, ui.s, 'needs-you', { width: 1280, height: 800 });
    try {
      await page.getByRole('button', { name: 'Back up now' }).click();
      const note = page.getByRole('status').filter({ hasText: 'Backed up and verified' });
      await note.waitFor({ timeout: 60_000 });
      const path = ((await ui.s.api('GET', '/v1/backups')).body as { last?: { path: string } }).last?.path;
      expect(path).toBeTruthy();
      expect(await note.textContent()).toContain(path);
      await screenshot(page, 'topbar-after-backup-1280');
      const overflow = await page.evaluate(() => {
        const bar = document.querySelector('header.topbar')!;
        const out: string[] = [];
        if (bar.scrollWidth > bar.clientWidth) out.push(`topbar ${bar.scrollWidth} > ${bar.clientWidth}`);
        for (const el of Array.from(bar.querySelectorAll<HTMLElement>('*'))) {
          if (el.closest('.backup-note') || el.offsetParent === null) continue;
          const css = getComputedStyle(el);
          // Inline boxes have no client width; what can cut its content is a box that hides overflow.
          if (css.display === 'inline' || css.overflowX === 'visible') continue;
          // Visually hidden text (sr-only) is a 1 px clipped box on purpose.
          if (css.position === 'absolute' && el.clientWidth <= 1) continue;
          if (el.scrollWidth > el.clientWidth + 1) out.push(`${el.tagName}.${el.className} ${el.scrollWidth} > ${el.clientWidth}`);
        }
        const note = bar.querySelector<HTMLElement>('.backup-note');
        if (note && note.scrollWidth > note.clientWidth + 1) out.push(`note ${note.scrollWidth} > ${note.clientWidth}`);
        return out;
      });
      expect(overflow).toEqual([]);
      // The signed-in name is whole.
      const who = page.getByTestId('signed-in-as');
      expect(await who.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    } finally {
      await context.close();
    }
  });
});
