#!/usr/bin/env node
// Installs the pinned host CLIs of test/hosts (npm ci --prefix test/hosts) when their lockfile
// changed since the last install; `npm test` runs this first (the "pretest" script). In CI a
// failed install fails the run; elsewhere (e.g. offline) it warns, and the host tests say they
// were skipped and why.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const dir = fileURLToPath(new URL('.', import.meta.url));
const lock = readFileSync(join(dir, 'package-lock.json'));
const stamp = join(dir, 'node_modules', '.agent-rooms-lock-sha256');
const want = createHash('sha256').update(lock).digest('hex');
if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) process.exit(0);

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const r = spawnSync(npm, ['ci', '--prefix', dir, '--no-audit', '--no-fund'], { stdio: 'inherit' });
if (r.status !== 0) {
  const why = `installing the host CLIs of test/hosts failed (npm ci exit ${r.status ?? r.signal})`;
  if (process.env.CI) {
    console.error(`${why}: failing (CI)`);
    process.exit(1);
  }
  console.warn(`${why}: the host tests will be skipped`);
  process.exit(0);
}
writeFileSync(stamp, want);
