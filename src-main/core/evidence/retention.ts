import type { Core } from '../core.js';
import { flushUnauthenticatedEvidence, pruneEvidence } from './store.js';
import { repeat, type StopStep } from '../util/repeat.js';

/**
 * The evidence store's upkeep: every minute the counts of suppressed unauthenticated failures
 * are written as summary rows; at start and every hour, evidence past its retention is deleted.
 */
export function startEvidenceMaintenance(core: Core): StopStep {
  const stopPrune = repeat({ name: 'evidence pruning', owner: core, everyMs: 3600_000, log: core.config.log }, () => {
    const n = pruneEvidence(core.db, undefined, undefined, core.ports.reportedErrorIds);
    if (n) core.config.log(`evidence: pruned ${n} rows past their retention`);
  });
  const stopFlush = repeat({ name: 'evidence flush', owner: core, everyMs: 60_000, runNow: false, log: core.config.log }, () => flushUnauthenticatedEvidence(core.db));
  return () => {
    stopPrune();
    stopFlush();
    flushUnauthenticatedEvidence(core.db, Infinity);
  };
}
