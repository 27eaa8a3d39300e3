import type { z } from 'zod';
import type { Db } from '../db/open.js';
import type { consentChange, feedbackConsentRecord } from '../../../shared/schemas/feedback.js';
import { immediate } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { AppError } from '../errors/app-error.js';

/** What the human allowed for one plate: bug reports (error reports, issue feedback) and product feedback. */
export type FeedbackConsent = z.output<typeof feedbackConsentRecord>;

interface ConsentRow {
  plate: string;
  bugs: number;
  product: number;
  revoked: number;
  granted_at: number | null;
  updated_at: number;
}

/** A plate's consent; both flags default off, and a revoked consent reads as both off. */
export function getConsent(db: Db, plate: string): FeedbackConsent {
  const r = stmt(db, 'SELECT * FROM feedback_consent WHERE plate = ?').get(plate) as ConsentRow | undefined;
  if (!r) return { plate, bugs: false, product: false, granted_at: null, revoked: false };
  const revoked = r.revoked === 1;
  return {
    plate,
    bugs: !revoked && r.bugs === 1,
    product: !revoked && r.product === 1,
    granted_at: r.granted_at === null ? null : new Date(r.granted_at).toISOString(),
    revoked,
  };
}

/**
 * Refuses a bug report (an error report or an issue in task feedback) without bug consent.
 * `refusal` says what needs it, e.g. "bug reports need your human’s consent"; the way to get it follows.
 */
export function requireBugConsent(db: Db, plate: string, refusal: string): void {
  if (getConsent(db, plate).bugs) return;
  throw new AppError('CONSENT_REQUIRED', `${refusal}: ask them directly, then record a clear yes with set_feedback_consent({bugs:true})`, {
    reason: 'bug_consent_missing',
  });
}

/** Refuses product feedback without product consent. */
export function requireProductConsent(db: Db, plate: string): void {
  if (getConsent(db, plate).product) return;
  throw new AppError(
    'CONSENT_REQUIRED',
    'product feedback needs your human’s consent: ask them directly, then record a clear yes with set_feedback_consent({product:true})',
    { reason: 'product_consent_missing' },
  );
}

/** The human's answer: set_feedback_consent's input, PUT /v1/agents/:plate/feedback-consent's body. */
export type ConsentChange = z.output<typeof consentChange>;

/**
 * Records the human's explicit answer for one plate. `revoked: true` turns both flags off;
 * granting a flag after a revocation starts a fresh consent (the other flag stays off until granted).
 */
export function setConsent(db: Db, plate: string, change: ConsentChange, now = Date.now()): FeedbackConsent {
  const grants = change.bugs === true || change.product === true;
  if (change.revoked === true && grants) {
    throw new AppError('INVALID_ARGUMENT', 'revoked:true cannot be combined with granting bugs or product; send one answer per call');
  }
  if (change.bugs === undefined && change.product === undefined && change.revoked === undefined) {
    throw new AppError('INVALID_ARGUMENT', 'give bugs, product or revoked');
  }
  immediate(db, () => {
    const cur = stmt(db, 'SELECT * FROM feedback_consent WHERE plate = ?').get(plate) as ConsentRow | undefined;
    let bugs = cur && cur.revoked === 0 ? cur.bugs : 0;
    let product = cur && cur.revoked === 0 ? cur.product : 0;
    let revoked = cur?.revoked ?? 0;
    let grantedAt = cur && cur.revoked === 0 ? cur.granted_at : null;
    if (change.revoked === true) {
      bugs = 0;
      product = 0;
      revoked = 1;
      grantedAt = null;
    } else {
      if (change.revoked === false || grants) revoked = 0;
      if (change.bugs !== undefined) bugs = change.bugs ? 1 : 0;
      if (change.product !== undefined) product = change.product ? 1 : 0;
      if (grants) grantedAt = now;
      if (!bugs && !product) grantedAt = null;
    }
    stmt(
      db,
      `INSERT INTO feedback_consent (plate, bugs, product, revoked, granted_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (plate) DO UPDATE SET bugs = excluded.bugs, product = excluded.product, revoked = excluded.revoked,
         granted_at = excluded.granted_at, updated_at = excluded.updated_at`,
    ).run(plate, bugs, product, revoked, grantedAt, now);
  });
  return getConsent(db, plate);
}
