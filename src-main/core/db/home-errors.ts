import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Why a home was refused. Each problem has its own process exit code, so scripts and the
 * desktop app can tell them apart (docs/backup.md "Start errors and exit codes").
 */
export const HOME_EXIT_CODES = {
  HOME_IN_USE: 3,
  HOME_PERMISSIONS: 4,
  HOME_READ_ONLY: 5,
  NOT_A_DATABASE: 6,
  DATABASE_CORRUPT: 7,
  PORT_IN_USE: 8,
} as const;

export type HomeProblem = keyof typeof HOME_EXIT_CODES;

export interface HomeErrorDetails {
  path?: string;
  pid?: number;
  url?: string | null;
}

/** A refused home: the message names the path, what is wrong and the fix. */
export class HomeError extends Error {
  constructor(
    readonly problem: HomeProblem,
    message: string,
    readonly details: HomeErrorDetails = {},
  ) {
    super(message);
    this.name = 'HomeError';
  }

  get exitCode(): number {
    return HOME_EXIT_CODES[this.problem];
  }
}

/** The newest complete backup under `<home>/backups`, for "restore from the latest backup" hints. */
export function latestBackup(home: string): string | undefined {
  const dir = join(home, 'backups');
  if (!existsSync(dir)) return undefined;
  let best: { path: string; at: number } | undefined;
  try {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (!existsSync(join(p, 'manifest.json')) || !existsSync(join(p, 'rooms.db'))) continue;
      const at = statSync(join(p, 'manifest.json')).mtimeMs;
      if (!best || at > best.at) best = { path: p, at };
    }
  } catch {
    return undefined;
  }
  return best?.path;
}

/** The sentence telling how to restore, naming the newest backup when there is one. */
export function restoreHint(home: string): string {
  const latest = latestBackup(home);
  return latest
    ? `restore the latest backup with: agent-rooms restore "${latest}" --home "${home}" (the damaged home is kept aside, not deleted)`
    : `restore a backup with: agent-rooms restore BACKUP_FOLDER --home "${home}" (no backup was found in ${join(home, 'backups')}; the damaged home is kept aside, not deleted)`;
}

/** Maps an error of opening or reading the database to a HomeError, or returns undefined. */
export function classifyDbError(err: unknown, file: string, home: string): HomeError | undefined {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  const said = (err as Error)?.message ?? String(err);
  if (code === 'SQLITE_NOTADB') {
    return new HomeError(
      'NOT_A_DATABASE',
      `${file} is not an agent-rooms database (SQLite: ${said}). Fix: if --home points at the wrong folder, choose the right one; otherwise move the file aside and ${restoreHint(home)}.`,
      { path: file },
    );
  }
  if (code.startsWith('SQLITE_CORRUPT')) {
    return new HomeError(
      'DATABASE_CORRUPT',
      `the database ${file} is damaged (SQLite: ${said}). The server did not start, so nothing more was written to it. Fix: ${restoreHint(home)}.`,
      { path: file },
    );
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new HomeError(
      'HOME_READ_ONLY',
      `the database ${file} cannot be written (SQLite: ${said}). Fix: make the file and its folder writable (chmod u+w "${file}" "${home}") or move the home off a read-only disk.`,
      { path: file },
    );
  }
  if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') {
    return new HomeError(
      'HOME_PERMISSIONS',
      `the database ${file} cannot be opened (SQLite: ${said}). Fix: check that it is a file you own and may read and write (ls -l "${file}"), or choose another home with --home DIR.`,
      { path: file },
    );
  }
  return undefined;
}
