// Evidence an error report refers to outlives the retention (docs/security.md, item 9). The
// evidence store does not read error_reports (the feedback capability owns it): feedback
// answers through the core's reportedErrorIds port, which capabilities.ts gives.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { openMemoryCore, type MemoryCore } from '../helpers/memory-core.js';
import { EVIDENCE_RETENTION_MS, getEvidence, pruneEvidence, recordEvidence } from '../../src-main/core/evidence/store.js';
import { AppError } from '../../src-main/core/errors/app-error.js';
import { ulid } from '../../src-main/core/util/ids.js';

describe('evidence retention and error reports', () => {
  let m: MemoryCore;

  beforeAll(() => {
    m = openMemoryCore();
  });
  afterAll(() => m?.close());

  it('keeps old evidence that a report refers to, and prunes the rest', () => {
    const { db, ports } = m.core;
    const stamp = Date.now() - EVIDENCE_RETENTION_MS - 3600_000;
    const reported = `err_${ulid(stamp)}`;
    const unreported = `err_${ulid(stamp)}`;
    const err = new AppError('INTERNAL', 'x');
    for (const errorId of [reported, unreported]) recordEvidence(db, { errorId, surface: 'mcp', tool: 'whoami', error: err, plate: 'TEST-AGT-000000' });
    db.prepare(
      `INSERT INTO error_reports (id, error_id, plate, owner_id, tool, code, classification, fingerprint, trace, created_at)
       VALUES ('rep_retention', ?, 'TEST-AGT-000000', 'own_x', 'whoami', 'INTERNAL', 'server_fault', 'f', '{}', ?)`,
    ).run(reported, Date.now());
    // As the hourly upkeep calls it (evidence/retention.ts).
    expect(pruneEvidence(db, undefined, undefined, ports.reportedErrorIds)).toBeGreaterThanOrEqual(1);
    expect(getEvidence(db, unreported)).toBeUndefined();
    expect(getEvidence(db, reported)).toBeDefined();
  });
});
