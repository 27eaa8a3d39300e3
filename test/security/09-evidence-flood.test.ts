// Item 9: every unauthenticated request wrote a permanent evidence row (9,937 rows in 3 s from
// one loop). The attack is that loop, on the human API and the MCP endpoint, with no or bad
// credentials. Now such failures are stored in full only up to a cap per source and minute and
// counted beyond it (one summary row per window), and evidence past its retention is pruned.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { ApiResponse } from '../helpers/server.js';
import { openTestApp, type TestApp } from '../helpers/app.js';
import {
  EVIDENCE_RETENTION_MS,
  UNAUTH_ROWS_PER_WINDOW,
  UNAUTH_WINDOW_MS,
  flushUnauthenticatedEvidence,
  getEvidence,
  pruneEvidence,
  recordEvidence,
} from '../../src-main/core/evidence/store.js';
import { AppError } from '../../src-main/core/errors/app-error.js';
import { ulid } from '../../src-main/core/util/ids.js';

describe('item 9: unauthenticated requests cannot fill the evidence store', () => {
  let s: TestApp;
  const rows = () => (s.running.core.db.prepare('SELECT COUNT(*) AS n FROM evidence').get() as { n: number }).n;

  beforeAll(async () => {
    s = await openTestApp();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('a loop of 1,500 unauthenticated requests stores a bounded number of rows, and counts the rest', async () => {
    const before = rows();
    // The human API's dispatch in process, with an empty and a bad bearer token; the raw unauthenticated
    // MCP request of this loop crosses the transport: test/integration/http-adapter.test.ts.
    const attempts: Array<() => Promise<ApiResponse>> = [
      () => s.api('GET', '/v1/rooms', undefined, ''),
      () => s.api('GET', '/v1/me', undefined, 'aro_not-a-token'),
    ];
    const ids = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const batch = await Promise.all(Array.from({ length: 30 }, (_, j) => attempts[(i * 30 + j) % attempts.length]!()));
      for (const r of batch) {
        expect(r.status).toBe(401);
        const body = r.body as { error: { error_id: string } };
        // Every refused request still gets its structured error with an id.
        expect(body.error.error_id).toMatch(/^err_/);
        ids.add(body.error.error_id);
      }
    }
    expect(ids.size).toBe(1500);
    const stored = rows() - before;
    // Two sources: at most the cap of each per window (the loop may straddle one window edge).
    expect(stored).toBeLessThanOrEqual(2 * UNAUTH_ROWS_PER_WINDOW * 2);
    // The rest is counted, not lost: one summary row per source once its window is over.
    flushUnauthenticatedEvidence(s.running.core.db, Date.now() + UNAUTH_WINDOW_MS);
    const summaries = s.running.core.db.prepare("SELECT arg_shape FROM evidence WHERE reason = 'aggregated'").all() as Array<{ arg_shape: string }>;
    const suppressed = summaries.reduce((n, r) => n + (JSON.parse(r.arg_shape) as { suppressed: number }).suppressed, 0);
    expect(suppressed + stored).toBe(1500);
    expect(rows() - before).toBeLessThanOrEqual(2 * UNAUTH_ROWS_PER_WINDOW * 2 + 4);
  });

  it('authenticated failures are still stored each', async () => {
    const before = rows();
    for (let i = 0; i < 60; i++) expect((await s.api('GET', `/v1/rooms/room_nope${i}`)).status).toBeGreaterThanOrEqual(400);
    expect(rows() - before).toBe(60);
  });

  it('evidence past its retention is pruned; newer evidence stays', () => {
    const db = s.running.core.db;
    const old = `err_${ulid(Date.now() - EVIDENCE_RETENTION_MS - 3600_000)}`;
    const recent = `err_${ulid(Date.now() - 3600_000)}`;
    const err = new AppError('NOT_FOUND', 'x');
    recordEvidence(db, { errorId: old, surface: 'v1', tool: 'GET /v1/x', error: err, ownerId: 'own_x' });
    recordEvidence(db, { errorId: recent, surface: 'v1', tool: 'GET /v1/x', error: err, ownerId: 'own_x' });
    expect(getEvidence(db, old)).toBeDefined();
    expect(pruneEvidence(db)).toBeGreaterThanOrEqual(1);
    expect(getEvidence(db, old)).toBeUndefined();
    expect(getEvidence(db, recent)).toBeDefined();
  });
});
