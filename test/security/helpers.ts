import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestHarness } from '../helpers/server.js';
import { forFile } from '../helpers/for-file.js';
import { openTestApp, type TestApp } from '../helpers/app.js';

/**
 * A small runner script (run with node, no shell): appends {cwd, stdin} to RUN_LOG, prints
 * what SCRIPT_PRINT names (files to cat, env vars to echo), and, when its stdin holds "hold",
 * stays until the file RUN_RELEASE exists.
 */
export function writeRunnerScript(dir: string): string {
  const file = join(dir, 'attack-runner.cjs');
  writeFileSync(
    file,
    `const fs = require('node:fs');
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  if (process.env.RUN_LOG) fs.appendFileSync(process.env.RUN_LOG, JSON.stringify({ cwd: process.cwd(), stdin: input }) + '\\n');
  for (const f of (process.env.PRINT_FILES || '').split(',').filter(Boolean)) {
    try { process.stdout.write(fs.readFileSync(f, 'utf8') + '\\n'); } catch (e) { process.stdout.write('cannot read ' + f + '\\n'); }
  }
  for (const v of (process.env.PRINT_ENV || '').split(',').filter(Boolean)) process.stdout.write(v + '=' + process.env[v] + '\\n');
  if (process.env.PRINT_TEXT) process.stderr.write(process.env.PRINT_TEXT + '\\n');
  if (input.includes('hold')) {
    const t = setInterval(() => { if (fs.existsSync(process.env.RUN_RELEASE || '')) { clearInterval(t); } }, 20);
  }
});
`,
  );
  return file;
}

export async function wakesOf(s: TestHarness, plate: string, token?: string): Promise<any[]> {
  const r = await s.api('GET', `/v1/agents/${plate}/wakes`, undefined, token);
  if (r.status !== 200) throw new Error(`wakes: ${JSON.stringify(r.body)}`);
  return r.body.wakes as any[];
}

/** Adds a human to a room (as the primary owner, its admin). */
export async function addHuman(s: TestHarness, room: string, ownerId: string, role: 'admin' | 'member' = 'member', token?: string) {
  const r = await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: ownerId, role }, token);
  if (r.status !== 201) throw new Error(`add human: ${JSON.stringify(r.body)}`);
}


/** What the runner attacks start from: the app, a folder of their own with the runner script in it, and a second owner, Bob. */
export interface RunnerRig {
  s: TestApp;
  dir: string;
  script: string;
  bob: { owner_id: string; token: string };
}

/**
 * The runner attacks' rig: the app with its background work (the wake dispatcher starts runs) on
 * a home of its own, made in beforeAll; in afterAll the app stops, then the folder goes (forFile).
 */
export function runnerRig(folderPrefix: string, bobName: string): RunnerRig {
  return forFile(async () => {
    const s = await openTestApp({ background: true, database: 'home', rateLimit: { perSecond: 0, burst: 1 } });
    const dir = mkdtempSync(join(tmpdir(), folderPrefix));
    return {
      s,
      dir,
      script: writeRunnerScript(dir),
      bob: await s.owner(bobName),
      async close() {
        await s.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}
