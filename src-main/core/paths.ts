import { homedir, platform } from 'node:os';
import { join, dirname } from 'node:path';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The port `agent-rooms serve` and the desktop app listen on unless told otherwise. */
export const DEFAULT_PORT = 7337;

/** The platform's user data folder for agent-rooms (XDG on Linux). */
export function defaultHome(): string {
  const env = process.env.AGENT_ROOMS_HOME;
  if (env) return env;
  if (platform() === 'darwin') return join(homedir(), 'Library', 'Application Support', 'agent-rooms');
  if (platform() === 'win32') return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'agent-rooms');
  return join(process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'agent-rooms');
}

/** The package root (where package.json is), from this file's location in src or dist. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  return process.cwd();
}
