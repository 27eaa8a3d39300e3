/**
 * What the server says the signed-in owner may do with a record (its `allowed_actions` and
 * `denied_actions`, docs/contract.md "Allowed actions"). The UI keeps no copy of the rules: it
 * shows an act the server lists, disables one it refuses with the server's reason, and hides
 * the rest.
 */
import type { Actions } from '../types';

/** Refused: `code` to key on, `reason` the server's message to show (the window parses no English). */
export type Allowed = { ok: true } | { ok: false; code: string; reason: string };

/** One act on a record: allowed, refused with the reason to show, or null when it does not apply now (hidden). */
export function actionOf<A extends string>(record: Actions<A>, action: A): Allowed | null {
  if (record.allowed_actions?.includes(action)) return { ok: true };
  const refusal = record.denied_actions?.[action];
  return refusal ? { ok: false, code: refusal.code, reason: refusal.message } : null;
}
