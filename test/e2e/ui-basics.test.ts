/// <reference lib="dom" />
import { describe, it, expect, beforeAll } from 'vitest';
import { ok, type TestAgent } from '../helpers/server.js';
import { browserSkip, uiForFile, screenshot, signedInPage } from '../helpers/browser.js';

const skip = browserSkip();

describe.skipIf(!!skip)('UI: sign-in, rooms, chat, agents', () => {
  const ui = uiForFile();
  let agent: TestAgent;

  beforeAll(async () => {
    agent = await ui.s.agent('Reviewer');
  });

  it('a stale or reused login link gets a clear page; without a session the UI says how to sign in', async () => {
    const ctx = await ui.browser.newContext();
    const page = await ctx.newPage();
    await page.goto(ui.s.baseUrl + '/');
    await expect.poll(() => page.getByText('You are not signed in').isVisible()).toBe(true);

    const url = ui.s.running.loginUrl();
    await page.goto(url);
    await page.getByTestId('signed-in-as').waitFor();
    // The link left the address bar at once, and the credential is no cookie (cookies reach
    // every port on 127.0.0.1): a token in this tab's sessionStorage, sent as a header.
    // (The start page, Needs you, has its own address: #/needs-you.)
    expect([ui.s.baseUrl + '/', ui.s.baseUrl + '/#/needs-you']).toContain(page.url());
    expect(await ctx.cookies()).toEqual([]);
    expect(await page.evaluate(() => Object.values(sessionStorage).some((v) => v.startsWith('ars_')))).toBe(true);

    const other = await ui.browser.newContext();
    const p2 = await other.newPage();
    await p2.goto(url);
    await expect.poll(() => p2.textContent('body')).toContain('already used');
    await p2.goto(ui.s.baseUrl + '/login?token=nonsense');
    await expect.poll(() => p2.textContent('body')).toContain('not valid');
    expect(await p2.getByTestId('signed-in-as').count()).toBe(0);
    await other.close();
    await ctx.close();
  });

  it('creates a room, adds an agent, shows it live, and an agent message appears without a refresh', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.getByLabel('New room').fill('Design review');
    await page.getByRole('button', { name: 'Create room' }).click();
    await page.getByRole('heading', { name: 'Design review', level: 1 }).waitFor();
    const roomId = decodeURIComponent(/#\/rooms\/([^/]+)/.exec(page.url())![1]!);

    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByLabel('Add one of your agents').selectOption(agent.plate);
    await page.getByRole('button', { name: 'Add agent' }).click();
    const row = page.locator(`[data-agent="${agent.handle}"]`);
    await row.waitFor();
    await expect.poll(() => row.textContent()).toContain('offline');

    const client = await ui.s.connect(agent.credential);
    await ok(client, 'whoami');
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('live ×1');
    await screenshot(page, 'members');

    await page.getByRole('link', { name: 'Chat' }).click();
    await page.getByText('No messages yet').waitFor();
    // The agent writes its own plate in the body: the page shows its handle instead.
    await ok(client, 'send_message', { room: roomId, body: `Hello from ${agent.plate}, please look at the diff`, mention_targets: ['@ada-owner'] });
    const msg = page.locator('article.msg', { hasText: 'please look at the diff' });
    await msg.waitFor({ timeout: 10_000 });
    expect(await msg.textContent()).not.toContain(agent.plate);
    expect(await msg.textContent()).toContain(agent.handle);
    expect(await msg.getAttribute('class')).toContain('mentions-me');
    expect(await page.locator('mark.mention.me').count()).toBeGreaterThan(0);

    // A human message with an @mention picked from the autocomplete reaches the agent's inbox.
    const box = page.getByRole('combobox', { name: 'Message the room' });
    await box.click();
    await box.pressSequentially('@rev');
    await page.getByRole('option', { name: new RegExp(agent.handle.replace(/[()]/g, '\\$&')) }).first().waitFor();
    await box.press('Enter');
    expect(await box.inputValue()).toBe(`${agent.handle} `);
    await box.pressSequentially('can you check the tests?');
    await box.press('Enter');
    await page.locator('article.msg', { hasText: 'can you check the tests?' }).waitFor();
    const inbox = await ok(client, 'check_mentions', { room: roomId });
    const item = inbox.items.find((i: any) => i.message?.body?.includes('can you check the tests?'));
    expect(item).toBeTruthy();
    expect(item.message.from.handle).toBe('@ada-owner');
    await screenshot(page, 'chat');

    // A thread reply carries parent_id.
    await msg.getByRole('button', { name: 'Reply in thread' }).click();
    const reply = page.getByRole('combobox', { name: 'Reply in thread' });
    await reply.fill('on it');
    await reply.press('Enter');
    const history = await ok(client, 'read_room', { room: roomId });
    const replied = history.messages.find((m: any) => m.body === 'on it');
    expect(replied.parent_id).toBe(history.messages.find((m: any) => m.body.includes('please look at the diff')).message_id);
    // Nowhere on the page, reply quotes and the screen-reader announcement included, does the raw plate show.
    await page.locator('article.msg', { hasText: 'on it' }).first().waitFor();
    expect(await page.locator('body').textContent()).not.toContain(agent.plate);

    const dark = await signedInPage(ui.browser, ui.s.running.loginUrl(), { colorScheme: 'dark' });
    await dark.page.goto(`${ui.s.baseUrl}/#/rooms/${roomId}/chat`);
    await dark.page.locator('article.msg').first().waitFor();
    await screenshot(dark.page, 'chat-dark');
    await dark.context.close();
    await context.close();
  });

  it('mints a credential that is shown once, with connection instructions for each host', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/agents`);
    await page.getByLabel('Name').fill('Builder');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('heading', { name: /Builder/, level: 2 }).waitFor();
    await page.getByLabel('Device name').fill('laptop');
    await page.getByRole('button', { name: 'Mint credential' }).click();
    const dialog = page.getByRole('dialog', { name: 'New credential' });
    await dialog.waitFor();
    const secret = (await dialog.getByTestId('minted-credential').textContent())!.trim();
    expect(secret).toMatch(/^ark_[A-Za-z0-9_-]{43}$/);
    expect(await dialog.getByRole('button', { name: 'Copy credential' }).isVisible()).toBe(true);
    const claude = await dialog.getByTestId('snippet-claude-code').textContent();
    // The same lines `agent-rooms connect` runs, under the agent's own server name.
    expect(claude).toMatch(/claude mcp add --scope user --transport http agent-rooms-[a-z0-9-]+ /);
    expect(claude).toContain(secret);
    for (const [tab, needle] of [
      ['Codex', 'codex mcp add agent-rooms-'],
      ['Gemini CLI', 'gemini mcp add --scope user --transport http agent-rooms-'],
      ['Cursor', '"mcpServers"'],
      ['Any MCP client', '/mcp'],
    ] as const) {
      await dialog.getByRole('tab', { name: tab }).click();
      expect(await dialog.locator('pre.snippet').textContent()).toContain(needle);
    }
    await screenshot(page, 'credential-once');
    // The secret really works.
    const c = await ui.s.connect(secret);
    expect((await ok(c, 'whoami')).name).toBe('Builder');

    await dialog.getByRole('button', { name: 'I have copied it' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'laptop' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await page.getByRole('cell', { name: 'laptop' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    await screenshot(page, 'agents');
    await context.close();
  });

  it('signs out with a POST that ends the session on the server', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    const token = await page.evaluate(() => Object.values(sessionStorage).find((v) => v.startsWith('ars_')));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are not signed in').waitFor();
    const me = await page.evaluate(async (t) => (await fetch('/v1/me', { headers: { authorization: `Bearer ${t}` } })).status, token);
    expect(me).toBe(401);
    expect(await page.evaluate(() => Object.values(sessionStorage).some((v) => v.startsWith('ars_')))).toBe(false);
    await context.close();
  });
});
