#!/usr/bin/env node
// `npm run rebuild:electron` / `npm run rebuild:node`: which ABI better-sqlite3 in
// node_modules is built for. The tests and `agent-rooms serve` need Node's; `npm run desktop`
// needs Electron's. (The packages are rebuilt by `npm run dist` itself, which puts the Node
// build back afterwards.)
//
//   electron: `electron-builder install-app-deps` (@electron/rebuild, from source, against
//             Electron's headers), after the same headers check as dist.mjs: one line if they
//             cannot be had. npm's `nodedir` setting is dropped, since node-gyp would otherwise
//             compile against that Node instead of Electron.
//   node:     `npm rebuild better-sqlite3` (its prebuilt binary, or a build from source).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildEnv, resolveHeaders } from './dist.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = process.argv[2];

function run(cmd, args, env) {
  const r = spawnSync(cmd, args, { cwd: ROOT, env, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`agent-rooms native: ${[cmd, ...args].join(' ')} failed (exit ${r.status ?? r.signal})\n`);
    process.exit(1);
  }
}

if (target === 'electron') {
  const version = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'electron', 'package.json'), 'utf8')).version;
  const headers = await resolveHeaders(process.env, version);
  if ('missing' in headers) {
    process.stderr.write(`agent-rooms native: ${headers.missing}\n`);
    process.exit(1);
  }
  run(process.execPath, [join(ROOT, 'node_modules', 'electron-builder', 'install-app-deps.js')], buildEnv(process.env));
} else if (target === 'node') {
  run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['rebuild', 'better-sqlite3'], process.env);
} else {
  process.stderr.write('usage: node scripts/native.mjs electron|node\n');
  process.exit(2);
}
