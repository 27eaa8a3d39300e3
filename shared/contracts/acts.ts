import { z } from 'zod';

/**
 * What a /v1 record says its caller may do with it now (docs/contract.md "Allowed actions"):
 * `allowed_actions`, and `denied_actions` naming each act the record's state allows but this
 * caller may not, with a stable `code` and the `message` to show. A contract's record that
 * carries them declares both, required: a route that forgets them fails its contract.
 */

export const refusal = z.object({ code: z.string(), message: z.string() });

/** A record with the acts of `acts` its caller may and may not do. */
export function withActions<Shape extends z.ZodRawShape, Config extends z.core.$ZodObjectConfig, const A extends readonly [string, ...string[]]>(
  record: z.ZodObject<Shape, Config>,
  acts: A,
) {
  // Typed by the record's shape, not by `z.ZodObject`: extending the bare constraint would widen every field to an index signature.
  const act = z.enum(acts);
  return record.extend({ allowed_actions: z.array(act), denied_actions: z.partialRecord(act, refusal) });
}
