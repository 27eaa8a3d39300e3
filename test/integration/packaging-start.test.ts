import { describe, it, expect } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = join(ROOT, 'scripts', 'build-if-changed.mjs');
const built = existsSync(join(ROOT, 'dist', 'src-main', 'core', 'cli.js')) && existsSync(join(ROOT, 'dist', 'renderer', 'index.html'));
if (!built) console.warn('test/integration/packaging-start.test.ts: skipped, no build in dist/ (npm run build)');

function check(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** `npm start` builds only when a source changed since the last build (scripts/build-if-changed.mjs). */
describe.skipIf(!built)('npm start: build only when the sources changed', () => {
  it('is up to date right after a build, needs one after a source changes, and is up to date again when it is back', async () => {
    const source = join(ROOT, 'shared', 'hosts.ts');
    const { atime, mtime: original } = statSync(source);
    // Whole seconds: a time set through utimes is a double of seconds, and a millisecond part may
    // come back a hair lower; a whole second comes back exactly, so the fingerprint can match again.
    const mtime = new Date(Math.floor(original.getTime() / 1000) * 1000);
    utimesSync(source, atime, mtime);
    // The stamp is put back afterwards: a build older than the sources must stay marked stale.
    const stampFile = join(ROOT, 'dist', '.build-stamp.json');
    const stamp = existsSync(stampFile) ? readFileSync(stampFile, 'utf8') : undefined;
    try {
      await upToDateThenChanged(source, atime, mtime);
    } finally {
      utimesSync(source, atime, original);
      if (stamp === undefined) rmSync(stampFile, { force: true });
      else writeFileSync(stampFile, stamp);
    }
  });
});

/** --stamp, then --check before and after a source's modification time moves, then a start that builds nothing. */
async function upToDateThenChanged(source: string, atime: Date, mtime: Date) {
  expect((await check(['--stamp'])).code).toBe(0);
  expect(await check(['--check'])).toEqual({ code: 0, out: 'up to date\n' });
  try {
    utimesSync(source, atime, new Date(mtime.getTime() + 5000));
    expect(await check(['--check'])).toEqual({ code: 3, out: 'build needed\n' });
  } finally {
    utimesSync(source, atime, mtime);
  }
  expect(await check(['--check'])).toEqual({ code: 0, out: 'up to date\n' });
  // A start with nothing changed says so and builds nothing.
  const start = await check([]);
  expect(start.code).toBe(0);
  expect(start.out).toContain('sources unchanged since the last build');
}
