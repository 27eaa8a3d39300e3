/**
 * One way to state a rule (docs/contract.md "Allowed actions"): per record, a table of acts,
 * each with `applies` (does the act make sense for the record as it is now?) and `may` (may this
 * caller do it?). The service's guard asks `may` before it acts, and the /v1 record lists the
 * table's answers as `allowed_actions` and `denied_actions`, so the two cannot disagree. A
 * refusal is `{code, message}`: the code is a stable snake_case string the window keys on
 * (docs/contract.md lists them), the message the sentence it shows.
 */

/** Why an act is refused: a stable code and the sentence to show. */
export interface Refusal {
  code: string;
  message: string;
}

export type Permission = { ok: true } | ({ ok: false } & Refusal);

export const yes: Permission = { ok: true };
export const no = (code: string, message: string): Permission => ({ ok: false, code, message });

/** One act of a record: whether it applies now (absent: always) and who may do it. */
export interface Act<F, W> {
  applies?: (facts: F) => boolean;
  may: (facts: F, who: W) => Permission;
}

export type ActTable<A extends string, F, W> = Record<A, Act<F, W>>;

/** What a /v1 record carries: the acts the caller may do now, and the refused ones with why. */
export interface Acts<A extends string> {
  allowed_actions: A[];
  denied_actions: Partial<Record<A, Refusal>>;
}

/** The table's answers for one record, in `order` (acts that do not apply now are in neither list). */
export function actsOf<A extends string, F, W>(order: readonly A[], table: ActTable<A, F, W>, facts: F, who: W): Acts<A> {
  const allowed: A[] = [];
  const denied: Partial<Record<A, Refusal>> = {};
  for (const a of order) {
    const act = table[a];
    if (act.applies && !act.applies(facts)) continue;
    const p = act.may(facts, who);
    if (p.ok) allowed.push(a);
    else denied[a] = { code: p.code, message: p.message };
  }
  return { allowed_actions: allowed, denied_actions: denied };
}
