#!/usr/bin/env node
// The `agent-rooms` command. Installed (`npm install -g`, or a package's node_modules/.bin) it runs
// the built CLI in dist/. In a clone, `npx agent-rooms …` runs this file too (npx runs the
// project's own bin), and there the build may be missing or older than the sources (after
// `npm ci`, or a pull): then it runs the CLI from its source through tsx (a devDependency), so
// `npx agent-rooms open` works and never meets a database newer than an old build
// (docs/ui.md "Sign-in"). `npm run build` (or `npm start`) makes it start faster again.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const built = join(root, 'dist', 'src-main', 'core', 'cli.js');
const source = join(root, 'src-main', 'core', 'cli.ts');
const check = join(root, 'scripts', 'build-if-changed.mjs');

/** A clone whose build is missing or older than its sources (exit 3 of `build-if-changed --check`). */
function staleClone() {
  if (!existsSync(source) || !existsSync(check)) return false;
  if (!existsSync(built)) return true;
  return spawnSync(process.execPath, [check, '--check'], { cwd: root, stdio: 'ignore' }).status === 3;
}

async function tsxRegister() {
  try {
    return (await import('tsx/esm/api')).register;
  } catch {
    return undefined;
  }
}

if (staleClone()) {
  const register = await tsxRegister();
  if (register) {
    register();
    await import(pathToFileURL(source).href);
  } else if (existsSync(built)) {
    await import(pathToFileURL(built).href);
  } else {
    process.stderr.write('agent-rooms: not built yet; run "npm run build" first\n');
    process.exit(2);
  }
} else if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  process.stderr.write('agent-rooms: not built yet; run "npm run build" first\n');
  process.exit(2);
}
