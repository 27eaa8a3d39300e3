import { chmodSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestApp, type TestApp } from '../helpers/app.js';


/**
 * `doctor` runs each runner's `--version` from the server's environment (docs/hosts.md "doctor").
 * A clean run is kept while nothing it depends on changed, so a second doctor does not wait on a
 * slow CLI again; a changed file or environment, and any failure, runs it afresh. The runner here
 * is a script that counts its runs.
 */
describe('doctor: the runner version check', () => {
  let s: TestApp;
  let dir: string;
  beforeAll(async () => {
    s = await openTestApp({ database: 'home' });
    dir = mkdtempSync(join(tmpdir(), 'ar-doctor-version-'));
  });
  afterAll(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const runs = () => readFileSync(join(dir, 'runs'), 'utf8').split('\n').filter(Boolean).length;
  function script(exitCode: number, version: string) {
    const file = join(dir, 'fake-cli');
    writeFileSync(file, `#!/bin/sh\necho run >> "${join(dir, 'runs')}"\necho "${version}"\nexit ${exitCode}\n`);
    chmodSync(file, 0o755);
    return file;
  }

  it('runs again only when the command file or the runner env changed; a failure is never kept', async () => {
    writeFileSync(join(dir, 'runs'), '');
    const a = await s.agent('Doctor version');
    const cli = script(0, 'fake-cli 1.0.0');
    const put = await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: cli, env: { MODE: 'one' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const check = async () => {
      const r = await s.api('POST', `/v1/agents/${a.plate}/doctor`, { credentials: [] });
      expect(r.status).toBe(200);
      return r.body.runners[0] as { ok: boolean; version: string | null; problem: string | null };
    };
    expect(await check()).toMatchObject({ ok: true, version: 'fake-cli 1.0.0' });
    expect(runs()).toBe(1);
    expect(await check()).toMatchObject({ ok: true, version: 'fake-cli 1.0.0' });
    expect(runs()).toBe(1);

    // The runner's environment changed: checked again.
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: cli, env: { MODE: 'two' } })).status).toBe(200);
    await check();
    expect(runs()).toBe(2);

    // The file changed (an upgrade, or a broken install): checked again, and the failure shows.
    script(3, 'broken');
    utimesSync(cli, new Date(), new Date(Date.now() + 5_000));
    expect(await check()).toMatchObject({ ok: false });
    expect(runs()).toBe(3);
    expect(await check()).toMatchObject({ ok: false });
    expect(runs()).toBe(4);
  });
});
