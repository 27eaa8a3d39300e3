import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** An executable file at this path? */
function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * Finds a command the way spawn does without a shell: a path with a slash as it is, a bare name
 * in each folder of `PATH` (of the given environment). Returns the absolute path, or undefined.
 */
export function onPath(command: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (command.includes('/')) return isAbsolute(command) && executable(command) ? command : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const p = join(dir, command);
    if (executable(p)) return p;
  }
  return undefined;
}
