import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestServer, ok, type TestServer, type TestAgent } from '../helpers/server.js';
import { browserSkipReason, launchBrowser, signedInPage } from '../helpers/browser.js';

const skip = browserSkipReason();
if (skip) console.warn(skip);

/**
 * The task panel's buttons are the record's allowed_actions (docs/contract.md "Allowed
 * actions"): a plain member who created a task may archive it once finished, which the board
 * used to hide, and sees the server's reason for what it may not do.
 */
describe.skipIf(!!skip)('UI: buttons follow allowed_actions', () => {
  let s: TestServer;
  let browser: Browser;
  let bea: { owner_id: string; token: string };
  let worker: TestAgent;
  let room: string;

  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
    browser = await launchBrowser();
    bea = await s.owner('Bea');
    // Bea's room, Bea's agent: the signed-in (primary) owner is a plain member there.
    room = await s.room('Bea room', bea.token);
    const me = (await s.api('GET', '/v1/me')).body;
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: me.owner_id, role: 'member' }, bea.token)).status).toBe(201);
    worker = await s.agent('Worker', { token: bea.token });
    await s.join(room, worker.plate, bea.token);
    expect((await s.api('PUT', `/v1/rooms/${room}/consent`, { mode: 'trust_room' }, bea.token)).status).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  async function doneTask(title: string, token?: string): Promise<string> {
    const t = await s.api('POST', `/v1/rooms/${room}/tasks`, { title, definition_of_done: 'done', assignee: worker.handle }, token);
    expect(t.status).toBe(201);
    const w = await s.connect(worker.credential);
    await ok(w, 'claim_task', { task_id: t.body.task_id });
    await ok(w, 'complete_task', { task_id: t.body.task_id, status: 'done', handoff_notes: 'notes' });
    return t.body.task_id as string;
  }

  it('the creator, a plain member, archives its finished task; refused acts show the server’s reason', async () => {
    const mine = await doneTask('Mine to archive');
    const { context, page } = await signedInPage(browser, s.running.loginUrl());
    await page.goto(`${s.baseUrl}/#/rooms/${room}/tasks/${mine}`);
    const panel = page.getByTestId('task-detail');
    await panel.waitFor();
    const archive = panel.getByRole('button', { name: 'Archive', exact: true });
    await archive.waitFor();
    // Only what the record lists is a button: cancel and reassign are Bea's here.
    expect(await panel.getByRole('button', { name: 'Cancel task' }).count()).toBe(0);
    expect(await panel.getByRole('button', { name: 'Reassign' }).count()).toBe(0);
    const rec = (await s.api('GET', `/v1/rooms/${room}/tasks/${mine}`)).body;
    expect(await panel.textContent()).toContain(Object.values(rec.denied_actions as Record<string, string>)[0]!);
    await archive.click();
    await panel.waitFor({ state: 'detached' });
    expect((await s.api('GET', `/v1/rooms/${room}/tasks/${mine}`)).body.archived).toBe(true);

    // A task Bea created: the same member may not archive it, and is told who may.
    const hers = await doneTask('Bea’s own', bea.token);
    await page.goto(`${s.baseUrl}/#/rooms/${room}/tasks/${hers}`);
    const theirs = page.getByRole('dialog', { name: 'Task: Bea’s own' });
    await theirs.getByText('Only the owner of this room’s agents may reassign here.').waitFor();
    expect(await theirs.getByRole('button', { name: 'Archive', exact: true }).count()).toBe(0);
    await context.close();
  });
});
