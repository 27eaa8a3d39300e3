#!/usr/bin/env node
// Runs the built CLI; `npm run build` produces dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const built = join(root, 'dist', 'src-main', 'core', 'cli.js');
if (!existsSync(built)) {
  process.stderr.write('agent-rooms: not built yet; run "npm run build" first\n');
  process.exit(2);
}
await import(pathToFileURL(built).href);
