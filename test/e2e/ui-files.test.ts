/// <reference lib="dom" />
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserSkip, uiForFile, screenshot, signedInPage } from '../helpers/browser.js';

const skip = browserSkip();

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe.skipIf(!!skip)('UI: workspace and files', () => {
  const ui = uiForFile();
  let roomId: string;
  let dir: string;

  beforeAll(async () => {
    roomId = await ui.s.room('Assets');
    dir = mkdtempSync(join(tmpdir(), 'agent-rooms-ui-files-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('the workspace token is masked in the page and in every response the page received', async () => {
    const token = 'ghp_' + randomBytes(18).toString('hex') + 'Zq9x';
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    const bodies: Array<{ url: string; body: string }> = [];
    const pending: Promise<void>[] = [];
    page.on('response', (r) => {
      if ((r.headers()['content-type'] ?? '').includes('text/event-stream')) return;
      pending.push(
        r
          .body()
          .then((b) => void bodies.push({ url: r.url(), body: b.toString('utf8') }))
          .catch(() => {}),
      );
    });
    await page.goto(`${ui.s.baseUrl}/#/rooms/${roomId}/workspace`);
    await page.getByLabel('Local path').fill('/home/ada/src/app');
    await page.getByLabel('Repository URL').fill('https://example.com/ada/app.git');
    await page.getByLabel('Branch').fill('main');
    await page.getByLabel('Git token').fill(token);
    await page.getByRole('button', { name: 'Save workspace' }).click();
    await page.getByText('Workspace saved.').waitFor();
    const current = page.getByTestId('token-current');
    await expect.poll(() => current.textContent()).toContain('••••Zq9x');
    expect(await page.getByLabel('Git token').inputValue()).toBe('');
    await page.reload();
    await expect.poll(() => page.getByTestId('token-current').textContent()).toContain('••••Zq9x');
    expect(await page.getByLabel('Local path').inputValue()).toBe('/home/ada/src/app');
    await screenshot(page, 'workspace');
    expect(await page.content()).not.toContain(token);
    await Promise.all(pending);
    expect(bodies.some((b) => b.url.includes('/workspace'))).toBe(true);
    for (const b of bodies) expect(b.body, b.url).not.toContain(token);
    // The server really holds it: replacing keeps the field write-only.
    const ws = await ui.s.api('GET', `/v1/rooms/${roomId}/workspace`);
    expect(ws.body.git_token).toBe('••••Zq9x');
    await context.close();
  });

  it('a 5 MB upload shows progress, then downloads byte-identical; drag-and-drop, quarantine and delete', async () => {
    const bytes = randomBytes(5 * 1024 * 1024);
    const file = join(dir, 'big.bin');
    writeFileSync(file, bytes);
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/rooms/${roomId}/files`);
    await page.getByText('No files yet.').waitFor();

    // Slow the upload down so the progress bar has something to show.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 4 * 1024 * 1024 });
    await page.evaluate(() => {
      const seen: number[] = ((window as any).__progress = []);
      const tick = () => {
        const p = document.querySelector('progress');
        if (p) seen.push(Number(p.getAttribute('value') ?? p.value));
        if (!document.querySelector('li[data-phase="done"], li[data-phase="failed"]')) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const t0 = Date.now();
    await page.setInputFiles('#file-pick', file);
    await page.locator('li[data-phase="done"]').waitFor({ timeout: 30_000 });
    const uploadMs = Date.now() - t0;
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    const seen: number[] = await page.evaluate(() => (window as any).__progress);
    const partial = seen.filter((v) => v > 0 && v < bytes.length);
    console.log(`5 MB upload: ${uploadMs} ms, ${partial.length} intermediate progress frames, e.g. ${partial.slice(0, 3).map((v) => Math.round((v / bytes.length) * 100) + '%').join(', ')}`);
    expect(partial.length).toBeGreaterThan(0);
    const row = page.getByRole('row', { name: /big\.bin/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('5.0 MiB');
    expect(await row.textContent()).toContain('ready');
    await screenshot(page, 'files');

    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: /Download/ }).click()]);
    const got = readFileSync((await download.path())!);
    expect(got.length).toBe(bytes.length);
    expect(sha(got)).toBe(sha(bytes));

    // Drag and drop a small file onto the drop zone.
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['dropped text'], 'notes.txt', { type: 'text/plain' }));
      document.querySelector('[data-testid="dropzone"]')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await page.getByRole('row', { name: /notes\.txt/ }).waitFor();

    // An upload whose bytes never arrived is shown quarantined and cannot be downloaded.
    const q = await ui.s.api('POST', `/v1/rooms/${roomId}/files/uploads`, { filename: 'pending.zip', content_type: 'application/zip', size_bytes: 10, sha256: 'a'.repeat(64) });
    expect(q.status).toBe(201);
    const qrow = page.getByRole('row', { name: /pending\.zip/ });
    await qrow.waitFor({ timeout: 10_000 });
    expect(await qrow.textContent()).toContain('quarantined');
    expect(await qrow.getByRole('button', { name: /Download/ }).isDisabled()).toBe(true);

    // Delete asks first.
    await page.getByRole('row', { name: /notes\.txt/ }).getByRole('button', { name: /Delete/ }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete file?' });
    await confirm.getByRole('button', { name: 'Keep it' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await page.getByRole('row', { name: /notes\.txt/ }).count()).toBe(1);
    await page.getByRole('row', { name: /notes\.txt/ }).getByRole('button', { name: /Delete/ }).click();
    await page.getByRole('dialog', { name: 'Delete file?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('row', { name: /notes\.txt/ }).waitFor({ state: 'detached' });
    await context.close();
  });
});
