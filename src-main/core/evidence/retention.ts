import type { Core } from '../context.js';
import { flushUnauthenticatedEvidence, pruneEvidence } from './store.js';

/**
 * The evidence store's upkeep: every minute the counts of suppressed unauthenticated failures
 * are written as summary rows; at start and every hour, evidence past its retention is deleted.
 */
export function startEvidenceMaintenance(core: Core): void {
  const prune = () => {
    try {
      const n = pruneEvidence(core.db, undefined, undefined, core.hooks.reportedErrorIds);
      if (n) core.config.log(`evidence: pruned ${n} rows past their retention`);
    } catch (err) {
      core.config.log(`evidence pruning failed: ${(err as Error).message}`);
    }
  };
  prune();
  const hourly = setInterval(prune, 3600_000);
  hourly.unref();
  const flush = setInterval(() => flushUnauthenticatedEvidence(core.db), 60_000);
  flush.unref();
  core.hooks.onClose.push(() => {
    clearInterval(hourly);
    clearInterval(flush);
    flushUnauthenticatedEvidence(core.db, Infinity);
  });
}
