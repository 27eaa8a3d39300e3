import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { Core } from '../core.js';
import { MAX_CHAIN_LIMIT, WAKE_BUDGET_LIMIT, type wakeSettings } from '../../../shared/schemas/wakes.js';

/**
 * The overnight limits of wakes (docs/wakes.md "Wakes you can leave running"): how deep a
 * chain of wakes may go before the next is held (`max_chain`), and how many wakes an agent
 * may start per hour (`wake_budget`, 0 = no limit). Stored in `<home>/settings.json` under
 * `wakes`, beside the other settings of the window; `serve --max-chain N --wake-budget N`
 * wins over the file for that process until the window changes them.
 */
export type WakeLimits = z.output<typeof wakeSettings>;

export const DEFAULT_WAKE_LIMITS: WakeLimits = { max_chain: 6, wake_budget: 30 };

const validChain = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_CHAIN_LIMIT;
const validBudget = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= WAKE_BUDGET_LIMIT;

function readSettingsFile(home: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The limits stored in the home; a missing or invalid value is the default. */
export function readWakeLimits(home: string): WakeLimits {
  const raw = readSettingsFile(home).wakes as Record<string, unknown> | undefined;
  return {
    max_chain: validChain(raw?.max_chain) ? raw.max_chain : DEFAULT_WAKE_LIMITS.max_chain,
    wake_budget: validBudget(raw?.wake_budget) ? raw.wake_budget : DEFAULT_WAKE_LIMITS.wake_budget,
  };
}

/** Writes the limits into the home's settings, keeping its other keys (write then rename: never half a file). */
function writeWakeLimits(home: string, limits: WakeLimits): void {
  const file = join(home, 'settings.json');
  const all = { ...readSettingsFile(home), wakes: limits };
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(all, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, file);
}

/**
 * The limits in force for one core (a service, docs/architecture.md "Services"): read from the
 * home at first use, the flags of `serve` winning; the window's change is stored and in force at once.
 */
export class WakeLimitsService {
  private live?: WakeLimits;

  constructor(
    private readonly home: string,
    private readonly flags: { maxChain?: number; wakeBudget?: number },
  ) {}

  get(): WakeLimits {
    if (!this.live) {
      const stored = readWakeLimits(this.home);
      this.live = { max_chain: this.flags.maxChain ?? stored.max_chain, wake_budget: this.flags.wakeBudget ?? stored.wake_budget };
    }
    return this.live;
  }

  set(patch: Partial<WakeLimits>): WakeLimits {
    const next = { ...this.get(), ...patch };
    writeWakeLimits(this.home, next);
    this.live = next;
    return next;
  }
}

declare module '../core.js' {
  interface CoreServices {
    /** The wake limits in force (max_chain, wake_budget). */
    wakeLimits: WakeLimitsService;
  }
}

/** The limits in force for this core: the flags of `serve`, else the home's settings, else the defaults. */
export function wakeLimits(core: Core): WakeLimits {
  return core.services.wakeLimits.get();
}

/** The window's change: stored in the home and in force at once. */
export function setWakeLimits(core: Core, patch: Partial<WakeLimits>): WakeLimits {
  return core.services.wakeLimits.set(patch);
}

export function parseMaxChain(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || !validChain(n)) throw new Error(`--max-chain takes 0 to ${MAX_CHAIN_LIMIT}, got "${v}"`);
  return n;
}

export function parseWakeBudget(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || !validBudget(n)) throw new Error(`--wake-budget takes 0 (no limit) to ${WAKE_BUDGET_LIMIT}, got "${v}"`);
  return n;
}
