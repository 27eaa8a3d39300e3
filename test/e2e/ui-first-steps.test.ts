/// <reference lib="dom" />
import { describe, it, expect, beforeAll } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ok, type TestAgent } from '../helpers/server.js';
import { browserSkip, uiForFile, screenshot, openSignedIn, openTab, UI_DIR } from '../helpers/browser.js';
import { connectPlan, mcpServerName } from '../../shared/host-connect.js';

/**
 * The places a new owner meets first, on one server, one home and one Chromium (docs/ui.md,
 * "Tests"): how the bundle is served, the first run, the backup indicator, sign-in, rooms, chat,
 * agents and credentials, the rights of other owners. The groups run in this order on the same
 * home: the first run needs a home without agents, so it comes first; "No backup yet" before
 * anything backs up. Each test has a signed-in tab of its own (openSignedIn, its own session).
 */
const bundleSkip = existsSync(join(UI_DIR, 'index.html')) ? undefined : `UI bundle not built at ${UI_DIR} (npm run build): skipping the serving tests`;
if (bundleSkip) console.warn(bundleSkip);
const skip = browserSkip();

/** A raw GET (fetch would decompress for us and hide what the server sent). */
function raw(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

describe.skipIf(!!bundleSkip)('UI: first steps on one server', () => {
  // Without Chromium the serving checks still run; the browser groups are skipped.
  const ui = uiForFile({}, undefined, { launch: !skip, oneRenderer: true });

  describe('serving the UI: compressed, cached, no source maps, a favicon', () => {
    let js: string;
    beforeAll(() => {
      js = readdirSync(join(UI_DIR, 'assets')).find((f) => f.endsWith('.js'))!;
    });

    it('sends precompressed brotli or gzip when accepted, the plain file otherwise; hashed assets are cached for a year', async () => {
      const plain = readFileSync(join(UI_DIR, 'assets', js));
      const br = await raw(`${ui.s.baseUrl}/assets/${js}`, { 'accept-encoding': 'gzip, deflate, br' });
      expect(br.status).toBe(200);
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers.vary).toContain('Accept-Encoding');
      expect(br.body.length).toBeLessThan(plain.length / 2);
      expect(brotliDecompressSync(br.body).equals(plain)).toBe(true);
      expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const gz = await raw(`${ui.s.baseUrl}/assets/${js}`, { 'accept-encoding': 'gzip' });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.body).equals(plain)).toBe(true);
      const none = await raw(`${ui.s.baseUrl}/assets/${js}`, { 'accept-encoding': 'br;q=0, identity' });
      expect(none.headers['content-encoding']).toBeUndefined();
      expect(none.body.equals(plain)).toBe(true);
      const page = await raw(`${ui.s.baseUrl}/`, { 'accept-encoding': 'br' });
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      // A client-side route is the page; a missing file is a 404, not the page.
      expect((await raw(`${ui.s.baseUrl}/rooms/anything`)).headers['content-type']).toContain('text/html');
      expect((await raw(`${ui.s.baseUrl}/assets/missing-0000.js`)).status).toBe(404);
    });

    it('has no source maps in the build, and serves none; /favicon.ico is an icon', async () => {
      const all = readdirSync(UI_DIR, { recursive: true }) as string[];
      expect(all.filter((f) => f.endsWith('.map'))).toEqual([]);
      expect(readFileSync(join(UI_DIR, 'assets', js), 'utf8')).not.toContain('sourceMappingURL');
      expect((await raw(`${ui.s.baseUrl}/assets/${js}.map`)).status).toBe(404);
      expect((await raw(`${ui.s.baseUrl}/assets/${js}.br`)).status).toBe(404);
      const ico = await raw(`${ui.s.baseUrl}/favicon.ico`);
      expect(ico.status).toBe(200);
      expect(ico.headers['content-type']).toBe('image/x-icon');
      expect(ico.body.readUInt16LE(2)).toBe(1); // ICO type: icon
      const svg = await raw(`${ui.s.baseUrl}/favicon.svg`);
      expect(svg.headers['content-type']).toBe('image/svg+xml');
      expect(svg.body.toString()).toContain('<svg');
    });
  });

  describe.skipIf(!!skip)('UI: first run, from an empty home to an agent live in a room', () => {
    it('creates an agent, shows the exact connect command, adds it to a new room and shows it going live', async () => {
      const { context, page } = await openSignedIn(ui.browser, ui.s);
      await page.getByRole('heading', { name: 'Welcome! Connect your first agent' }).waitFor();
      await page.getByLabel('Agent name').fill('Reviewer');
      await page.getByLabel('Where it runs').selectOption('claude-code');
      await page.getByRole('button', { name: 'Create agent' }).click();

      // `agent-rooms connect claude-code`, then what it writes, from the same plan the CLI follows
      // (shared/hosts.ts): the core profile's URL, and no secret anywhere on the page (docs/hosts.md).
      const cmd = (await page.getByTestId('connect-command').textContent())!;
      const reviewer = ((await ui.s.api('GET', '/v1/agents')).body.agents as Array<{ plate: string; name: string }>).find((a) => a.name === 'Reviewer')!;
      expect(cmd.split('\n')[0]).toBe('agent-rooms connect claude-code --agent Reviewer');
      const plan = connectPlan({ host: 'claude-code', plate: reviewer.plate, baseUrl: ui.s.baseUrl, credential: '<credential>', tools: 'core' });
      expect(cmd).toContain(JSON.stringify({ mcpServers: { [mcpServerName(reviewer.plate)]: plan.writes[0]!.json!.value } }, null, 2));
      expect(cmd).toContain(`${ui.s.baseUrl}/mcp/claude-code?tools=core`);
      expect(await page.locator('body').textContent()).not.toMatch(/ark_/);
      // The host connects with a credential connect would mint: the page shows it live in the room.
      const credential = (await ui.s.api('POST', `/v1/agents/${reviewer.plate}/credentials`, { device: 'claude-code (agent-rooms connect)' })).body.credential as string;

      await page.getByLabel('New room name').fill('First room');
      await page.getByRole('button', { name: 'Add to room' }).click();
      const live = page.getByTestId('onboarding-live');
      await expect.poll(() => live.textContent()).toContain('Waiting for @reviewer');
      expect(await live.locator('[data-presence]').getAttribute('data-presence')).toBe('offline');

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

  describe.skipIf(!!skip)('UI: the last backup and "Back up now"', () => {
    it('the primary owner sees there is no backup yet, backs up with one click and sees it verified; another owner sees no backup controls', async () => {
      const { context, page } = await openSignedIn(ui.browser, ui.s);
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
      const other = await openSignedIn(ui.browser, ui.s, '', { ownerId: bob.owner_id });
      expect(await other.page.getByTestId('backup-panel').count()).toBe(0);
      await other.context.close();
    });
  });

  describe.skipIf(!!skip)('UI: sign-in, rooms, chat, agents', () => {
    let agent: TestAgent;

    beforeAll(async () => {
      // Not 'Reviewer': the first run above named its agent so (a handle is unique per owner).
      agent = await ui.s.agent('Reviewer Two');
    });

    it('a stale or reused login link gets a clear page; without a session the UI says how to sign in', async () => {
      const { context: ctx, page } = await openTab(ui.browser);
      await page.goto(ui.s.baseUrl + '/');
      await expect.poll(() => page.getByText('You are not signed in').isVisible()).toBe(true);

      const url = ui.s.running.loginUrl();
      await page.goto(url);
      await page.getByTestId('signed-in-as').waitFor();
      // The link left the address bar at once, and the credential is no cookie (cookies reach
      // every port on 127.0.0.1): a token in this origin's localStorage, sent as a header.
      // (The start page, Needs you, has its own address: #/needs-you.)
      expect([ui.s.baseUrl + '/', ui.s.baseUrl + '/#/needs-you']).toContain(page.url());
      expect(await ctx.cookies()).toEqual([]);
      expect(await page.evaluate(() => Object.values(localStorage).some((v) => v.startsWith('ars_')))).toBe(true);

      const { context: other, page: p2 } = await openTab(ui.browser);
      await p2.goto(url);
      // The page loads, then asks the server: on a busy machine that takes longer than a poll's default second.
      await expect.poll(() => p2.textContent('body'), { timeout: 10_000 }).toContain('already used');
      await p2.goto(ui.s.baseUrl + '/login?token=nonsense');
      await expect.poll(() => p2.textContent('body'), { timeout: 10_000 }).toContain('not valid');
      expect(await p2.getByTestId('signed-in-as').count()).toBe(0);
      await other.close();
      await ctx.close();
    });

    it('creates a room, adds an agent, shows it live, and an agent message appears without a refresh', async () => {
      const { context, page } = await openSignedIn(ui.browser, ui.s);
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
      // The reply is posted once the page shows it (Enter only starts the request).
      await page.locator('article.msg', { hasText: 'on it' }).first().waitFor();
      const history = await ok(client, 'read_room', { room: roomId });
      const replied = history.messages.find((m: any) => m.body === 'on it');
      expect(replied.parent_id).toBe(history.messages.find((m: any) => m.body.includes('please look at the diff')).message_id);
      // Nowhere on the page, reply quotes and the screen-reader announcement included, does the raw plate show.
      await page.locator('article.msg', { hasText: 'on it' }).first().waitFor();
      expect(await page.locator('body').textContent()).not.toContain(agent.plate);

      const dark = await openSignedIn(ui.browser, ui.s, `rooms/${roomId}/chat`, { colorScheme: 'dark' });
      await dark.page.locator('article.msg').first().waitFor();
      await screenshot(dark.page, 'chat-dark');
      await dark.context.close();
      await context.close();
    });

    it('mints a credential that is shown once, with connection instructions for each host', async () => {
      const { context, page } = await openSignedIn(ui.browser, ui.s, 'agents');
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
      // `agent-rooms connect`, then what it writes under the agent's own server name; the secret is
      // in its own field above, never on a shown command line (docs/hosts.md).
      expect(claude).toMatch(/^agent-rooms connect claude-code --agent Builder\n/);
      expect(claude).toMatch(/"agent-rooms-[a-z0-9-]+": \{\n\s+"type": "http",\n\s+"url": "http:\/\/127\.0\.0\.1:\d+\/mcp\/claude-code\?tools=core"/);
      for (const [tab, needle] of [
        ['Codex', 'codex mcp add agent-rooms-'],
        ['Gemini CLI', '"httpUrl"'],
        ['Cursor', '"mcpServers"'],
        ['Any MCP client', '/mcp?tools=core'],
      ] as const) {
        await dialog.getByRole('tab', { name: tab }).click();
        const text = (await dialog.locator('pre.snippet').textContent())!;
        expect(text).toContain(needle);
        expect(text).toContain('?tools=core');
        expect(text, `${tab}: no credential in the lines shown`).not.toMatch(/ark_/);
      }
      // No token text in the dialog but the credential's own field.
      expect(((await dialog.textContent()) ?? '').split(secret).join('').includes('ark_')).toBe(false);
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
      const { context, page } = await openSignedIn(ui.browser, ui.s);
      const token = await page.evaluate(() => Object.values(localStorage).find((v) => v.startsWith('ars_')));
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You are not signed in').waitFor();
      const me = await page.evaluate(async (t) => (await fetch('/v1/me', { headers: { authorization: `Bearer ${t}` } })).status, token);
      expect(me).toBe(401);
      expect(await page.evaluate(() => Object.values(localStorage).some((v) => v.startsWith('ars_')))).toBe(false);
      await context.close();
    });
  });

  /** The UI actions of issue 14 (docs/security.md): runner rights toggle, restore a deleted file, leave a room. */
  describe.skipIf(!!skip)('UI: rights (issue 14)', () => {
    let bob: { owner_id: string; token: string };

    beforeAll(async () => {
      bob = await ui.s.owner('Bob Teammate');
    });

    const bobAllowed = async () => ((await ui.s.api('GET', '/v1/owners')).body.owners as any[]).find((o) => o.owner_id === bob.owner_id).allow_runners;

    it('the primary owner allows and forbids runners for another owner, after a warning', async () => {
      const { context, page } = await openSignedIn(ui.browser, ui.s, 'agents');
      await page.getByRole('heading', { name: 'People on this server' }).waitFor();
      expect(await page.locator('#runner-right-warning').textContent()).toMatch(/run any command on this machine as your user account/);
      const box = page.locator(`[data-owner="${bob.owner_id}"]`).getByRole('checkbox');
      expect(await box.isChecked()).toBe(false);
      // Allowing asks first (docs/security.md item 1); keeping them off sends nothing.
      await box.click();
      const ask = page.getByRole('dialog', { name: 'Let Bob Teammate run commands on this machine?' });
      expect(await ask.textContent()).toContain('as your user account');
      await ask.getByRole('button', { name: 'Keep them off' }).click();
      await ask.waitFor({ state: 'detached' });
      expect(await box.isChecked()).toBe(false);
      expect(await bobAllowed()).toBe(false);
      // Confirmed, the box follows the server: it turns once the PATCH succeeded.
      await box.click();
      await ask.getByRole('button', { name: 'Allow Bob Teammate’s runners' }).click();
      await ask.waitFor({ state: 'detached' });
      await expect.poll(bobAllowed).toBe(true);
      await expect.poll(() => box.isChecked()).toBe(true);
      // Taking the right back needs no confirmation.
      await box.click();
      await expect.poll(bobAllowed).toBe(false);
      await expect.poll(() => box.isChecked()).toBe(false);
      await context.close();

      // Bob sees no such list, and is told why he cannot configure runners.
      const agent = await ui.s.agent('Bob ui agent', { token: bob.token });
      const b = await openSignedIn(ui.browser, ui.s, `agents/${agent.plate}`, { ownerId: bob.owner_id });
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
      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/files`);
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
      const b = await openSignedIn(ui.browser, ui.s, `rooms/${room}/members`, { ownerId: bob.owner_id });
      await b.page.getByRole('button', { name: 'Leave room' }).click();
      await b.page.getByRole('dialog', { name: 'Leave room?' }).getByRole('button', { name: 'Leave' }).click();
      await expect.poll(async () => (await ui.s.api('GET', `/v1/rooms/${room}`, undefined, bob.token)).status).toBe(404);
      await b.context.close();

      // The primary owner, now the only human, cannot leave.
      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/members`);
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
});
