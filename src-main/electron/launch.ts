// `npm run desktop`: runs the built shell in the Electron binary of node_modules/electron,
// or says plainly why it cannot (the binary is fetched on first use and may be missing).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../core/start.js';
import { electronMissingMessage, findElectronBinary } from './shell.js';

const main = join(dirname(fileURLToPath(import.meta.url)), 'main.js');
const found = findElectronBinary(packageRoot(), process.env);
if ('missing' in found) {
  process.stderr.write(electronMissingMessage(found.missing) + '\n');
  process.exit(1);
}
if (!existsSync(main)) {
  process.stderr.write(`agent-rooms desktop: ${main} is not built: run "npm run build:desktop"\n`);
  process.exit(1);
}
// Chromium refuses to run as root without --no-sandbox (containers, CI); say so rather than fail silently.
const extra = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
if (extra.length) process.stderr.write('agent-rooms desktop: running as root, so Chromium runs with --no-sandbox\n');
const child = spawn(found.path, [main, ...extra, ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
