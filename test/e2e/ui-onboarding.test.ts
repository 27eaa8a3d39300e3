import { describe, it, expect, beforeAll } from 'vitest';
import { ok } from '../helpers/server.js';
import { browserSkip, uiForFile, screenshot, signedInPage } from '../helpers/browser.js';
import { connectPlan, mcpServerName, shellLine } from '../../shared/host-connect.js';

const skip = browserSkip();

describe.skipIf(!!skip)('UI: first run, from an empty home to an agent live in a room', () => {
  const ui = uiForFile();

  beforeAll(async () => {
      });

  it('creates an agent, shows the exact connect command, adds it to a new room and shows it going live', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.getByRole('heading', { name: 'Welcome! Connect your first agent' }).waitFor();
    await page.getByLabel('Agent name').fill('Reviewer');
    await page.getByLabel('Where it runs').selectOption('claude-code');
    await page.getByRole('button', { name: 'Create agent' }).click();

    // The exact command `agent-rooms connect claude-code` runs (shared/host-connect.ts), credential filled in.
    const cmd = (await page.getByTestId('connect-command').textContent())!;
    const credential = /Bearer ([^'"\s]+)'/.exec(cmd)![1]!;
    const reviewer = ((await ui.s.api('GET', '/v1/agents')).body.agents as Array<{ plate: string; name: string }>).find((a) => a.name === 'Reviewer')!;
    expect(cmd).toBe(shellLine(connectPlan({ host: 'claude-code', plate: reviewer.plate, baseUrl: ui.s.baseUrl, credential }).commands[0]!));
    expect(cmd).toContain(`claude mcp add --scope user --transport http ${mcpServerName(reviewer.plate)} ${ui.s.baseUrl}/mcp/claude-code --header 'Authorization: Bearer `);
    expect(await page.getByText(`agent-rooms connect claude-code --agent Reviewer`).count()).toBe(1);

    await page.getByLabel('New room name').fill('First room');
    await page.getByRole('button', { name: 'Add to room' }).click();
    const live = page.getByTestId('onboarding-live');
    await expect.poll(() => live.textContent()).toContain('Waiting for @reviewer');
    expect(await live.locator('[data-presence]').getAttribute('data-presence')).toBe('offline');

    // The host connects with the command's credential: the page shows it live in the room.
    const client = await ui.s.connect(credential, 'claude-code');
    await ok(client, 'list_rooms', {});
    await expect.poll(() => live.textContent(), { timeout: 15_000 }).toContain('is live in First room');
    expect(await live.locator('[data-presence]').getAttribute('data-presence')).toBe('live');
    await screenshot(page, 'issue16-onboarding');

    // The agents list and the room's members say live too.
    await page.getByRole('link', { name: 'Agents' }).click();
    await expect.poll(() => page.locator('.list li', { hasText: 'Reviewer' }).locator('[data-presence]').getAttribute('data-presence'), { timeout: 10_000 }).toBe('live');
    await page.getByRole('link', { name: 'First room' }).click();
    await page.getByRole('link', { name: 'Members' }).click();
    await expect.poll(() => page.locator('li[data-agent]').textContent(), { timeout: 10_000 }).toContain('live ×1');
    await context.close();
  });
});
