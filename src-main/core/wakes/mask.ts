import { maskBounded } from '../util/secret-mask.js';
import type { WakeUsage } from './store.js';

/**
 * Masking of what a human may read of a run (docs/security.md): the secrets the server gave the
 * run, and every secret shape this server issues, whoever it belongs to. The scanner itself is
 * util/secret-mask.ts (one for every place that masks: tails, transcripts, usage, `--version`
 * lines, git's words, the doctor's report), linear in its input whatever the input.
 */
export { maskIssuedSecrets, maskSecrets, maskBounded, SecretMasker } from '../util/secret-mask.js';

/** The longest model name a wake keeps (docs/wakes.md "Usage"). */
export const USAGE_MODEL_MAX = 200;

/**
 * A run's usage as a human may read it: `model` is runner output (a runner may print anything
 * there, a runner env value or another agent's credential included), so it is masked like the
 * tails and bounded (docs/security.md "Third round"); the numbers are numbers already.
 */
export function keptUsage(u: WakeUsage, secrets: readonly string[]): WakeUsage {
  if (typeof u.model !== 'string') return u;
  const model = maskBounded(u.model, secrets, USAGE_MODEL_MAX).trim();
  return { ...u, model: model || null };
}
