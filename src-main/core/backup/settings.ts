import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Automatic snapshots, from `<home>/settings.json`:
 *   {"backups": {"auto": true, "every_hours": 24, "keep": 7}}
 * `AGENT_ROOMS_AUTO_BACKUP=off` turns them off whatever the file says. Missing or invalid
 * values fall back to the defaults (daily, keep 7).
 */
export interface SnapshotSettings {
  auto: boolean;
  every_hours: number;
  keep: number;
  /** Delay before the first look after start (default 60 s, so start-up is never slowed). */
  first_check_s: number;
}

export const DEFAULT_SNAPSHOTS: SnapshotSettings = { auto: true, every_hours: 24, keep: 7, first_check_s: 60 };

export function readSnapshotSettings(home: string, env: NodeJS.ProcessEnv = process.env): SnapshotSettings {
  let raw: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')) as { backups?: unknown };
    if (parsed && typeof parsed.backups === 'object' && parsed.backups) raw = parsed.backups as Record<string, unknown>;
  } catch {
    // no settings file: defaults
  }
  const num = (v: unknown, min: number, max: number, dflt: number) => (typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : dflt);
  const s: SnapshotSettings = {
    auto: typeof raw.auto === 'boolean' ? raw.auto : DEFAULT_SNAPSHOTS.auto,
    every_hours: num(raw.every_hours, 0.0001, 24 * 365, DEFAULT_SNAPSHOTS.every_hours),
    keep: Math.floor(num(raw.keep, 1, 10_000, DEFAULT_SNAPSHOTS.keep)),
    first_check_s: num(raw.first_check_s, 0, 86_400, DEFAULT_SNAPSHOTS.first_check_s),
  };
  const envAuto = env.AGENT_ROOMS_AUTO_BACKUP?.toLowerCase();
  if (envAuto === 'off' || envAuto === '0' || envAuto === 'false') s.auto = false;
  return s;
}
