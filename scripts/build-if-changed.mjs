#!/usr/bin/env node
/**
 * `npm start` builds only when the sources changed since the last build: a fingerprint of every
 * build input (path, size, modification time) is compared with the one saved in
 * dist/.build-stamp.json by the last build. `npm run build` (or `--force`) always rebuilds;
 * `--stamp` records the current sources as built, `--check` only says whether a build is needed.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(root, 'dist', '.build-stamp.json');
/** What the build reads: the sources and the files that configure the build. */
const INPUT_DIRS = ['src-main', 'src-renderer', 'shared'];
const INPUT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'scripts/compress-ui.mjs'];
/** What the build writes: without them there is nothing to start. */
const OUTPUTS = ['dist/src-main/core/cli.js', 'dist/renderer/index.html'];

function walk(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
}

export function fingerprint() {
  const files = [];
  for (const d of INPUT_DIRS) walk(join(root, d), files);
  for (const f of INPUT_FILES) if (existsSync(join(root, f))) files.push(join(root, f));
  const h = createHash('sha256');
  for (const f of files.sort()) {
    const st = statSync(f);
    h.update(`${relative(root, f)}\0${st.size}\0${Math.floor(st.mtimeMs)}\n`);
  }
  return h.digest('hex');
}

function saved() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8')).fingerprint;
  } catch {
    return undefined;
  }
}

function stamp(fp) {
  writeFileSync(STAMP, JSON.stringify({ fingerprint: fp, built_at: new Date().toISOString() }) + '\n');
}

// `npm run build` ends with --stamp: the build it just made is the current one.
if (process.argv.includes('--stamp')) {
  stamp(fingerprint());
  process.exit(0);
}
const force = process.argv.includes('--force');
const before = fingerprint();
const missing = OUTPUTS.filter((f) => !existsSync(join(root, f)));
// --check: only say whether a start would build (exit 0: no, 3: yes).
if (process.argv.includes('--check')) {
  const needed = missing.length > 0 || saved() !== before;
  process.stdout.write(needed ? 'build needed\n' : 'up to date\n');
  process.exit(needed ? 3 : 0);
}
if (!force && !missing.length && saved() === before) {
  process.stderr.write('agent-rooms: sources unchanged since the last build; starting the built app (npm run build rebuilds)\n');
  process.exit(0);
}
process.stderr.write(`agent-rooms: ${force ? 'rebuilding' : missing.length ? 'no build yet' : 'sources changed since the last build'}: building\n`);
// Under npm, npm_execpath is npm's own CLI: run it with this node, no shell.
const npm = process.env.npm_execpath;
const r = npm ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' }) : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
if (r.status !== 0) process.exit(r.status ?? 1);
// The fingerprint taken before the build: a source edited while it ran makes the next start build again.
stamp(before);
