import fc from 'fast-check';
import type { Db } from '../../src-main/core/db/open.js';

/**
 * fast-check arbitraries shared by the fuzz tests: values shaped after a tool's JSON schema
 * (seeded with real ids so calls get past the first check), and junk of every kind.
 */

/** Strings that break naive code: lone surrogates, NUL, RTL overrides, zero-width, emoji, path tricks. */
export const UNICODE_EDGES = [
  '',
  ' ',
  '\u0000',
  '\uD800',
  '\uDFFF',
  'a\uD83D',
  '\u202E\u202Dabc',
  '\u200B\u200C\u200D\uFEFF',
  '🧪👩‍👩‍👧‍👦🏳️‍🌈',
  'é'.normalize('NFD'),
  'İıſ',
  '\r\n\t\v\f',
  '../../etc/passwd',
  '%00%2e%2e%2f',
  "'; DROP TABLE messages; --",
  '{"$ref":"#"}',
  '__proto__',
  'constructor',
  '@',
  '@x(y)#z',
  '\\u0000',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
];

export const edgeString = fc.constantFrom(...UNICODE_EDGES);

/** Up to ~300 KB: big enough to cross the message and inline-file limits, well under the 1 MiB body limit. */
export const hugeString = fc
  .tuple(fc.constantFrom('x', 'é', '🧪', '\u0000', 'ab'), fc.constantFrom(1_000, 65_537, 140_000, 300_000))
  .map(([c, n]) => c.repeat(Math.ceil(n / c.length)).slice(0, n));

const deepNest = fc.integer({ min: 10, max: 200 }).map((d) => {
  let v: unknown = 'leaf';
  for (let i = 0; i < d; i++) v = i % 2 ? { k: v } : [v];
  return v;
});

/** Anything JSON can carry, plus deep nesting and the edge strings. */
export const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  edgeString,
  hugeString,
  deepNest,
  fc.constantFrom(null, true, false, 0, -1, 1e308, -0, Number.MAX_SAFE_INTEGER + 2, 0.5, [], {}),
  fc.array(edgeString, { maxLength: 5 }),
);

type Schema = Record<string, any>;
/** Property name → realistic values for it (e.g. room → the room ids), used most of the time. */
export type Hints = Record<string, string[]>;

/** A value that fits the schema's shape, drawing strings from the seeds (real ids) most of the time. */
export function fromSchema(schema: Schema, seeds: string[], depth = 0, hints: Hints = {}, prop?: string): fc.Arbitrary<unknown> {
  if (!schema || typeof schema !== 'object' || depth > 4) return junk;
  const hinted = prop ? hints[prop] : undefined;
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alts = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alts?.length) return fc.oneof(...alts.map((a) => fromSchema(a, seeds, depth + 1, hints, prop)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string': {
      const max = typeof schema.maxLength === 'number' ? Math.min(schema.maxLength, 400) : 400;
      return fc.oneof(
        ...(hinted?.length ? [{ weight: 12, arbitrary: fc.constantFrom(...hinted) }] : []),
        { weight: 4, arbitrary: fc.constantFrom(...seeds) },
        { weight: 2, arbitrary: fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.max(max, schema.minLength ?? 0) }) },
        { weight: 1, arbitrary: edgeString },
      );
    }
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
      const max = typeof schema.maximum === 'number' ? schema.maximum : 1_000_000;
      return type === 'integer' ? fc.integer({ min: Math.max(min, -1e9), max: Math.min(max, 1e9) }) : fc.double({ min, max, noNaN: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema(schema.items ?? {}, seeds, depth + 1, hints, prop), { maxLength: Math.min(schema.maxItems ?? 4, 4) });
    case 'object':
    case undefined: {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      if (!Object.keys(props).length) return type === 'object' ? fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }) : junk;
      const required = new Set<string>((schema.required as string[] | undefined) ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) model[k] = fromSchema(v, seeds, depth + 1, hints, k);
      return fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
    }
    default:
      return junk;
  }
}

/**
 * Arguments for one tool: half shaped after its schema, the rest broken on purpose
 * (a field of the wrong type, a field missing, unknown fields, pure junk).
 */
export function toolArgs(schema: Schema, seeds: string[], hints: Hints = {}): fc.Arbitrary<Record<string, unknown>> {
  const valid = fromSchema({ ...schema, type: 'object' }, seeds, 0, hints) as fc.Arbitrary<Record<string, unknown>>;
  const props = Object.keys((schema.properties ?? {}) as object);
  const wrongType = valid.chain((v) =>
    props.length
      ? fc.tuple(fc.constantFrom(...props), junk).map(([k, j]) => ({ ...v, [k]: j }))
      : fc.constant({ ...v, surprise: 1 }),
  );
  const missing = valid.chain((v) => {
    const keys = Object.keys(v);
    return keys.length ? fc.constantFrom(...keys).map((k) => Object.fromEntries(Object.entries(v).filter(([x]) => x !== k))) : fc.constant({});
  });
  const unknownFields = fc
    .tuple(valid, fc.dictionary(fc.oneof(edgeString, fc.string({ minLength: 1, maxLength: 20 })), junk, { minKeys: 1, maxKeys: 4 }))
    .map(([v, extra]) => ({ ...extra, ...v }));
  const pureJunk = fc.dictionary(fc.oneof(fc.constantFrom(...props, 'x'), fc.string({ maxLength: 8 })), junk, { maxKeys: 5 });
  return fc.oneof(
    { weight: 5, arbitrary: valid },
    { weight: 2, arbitrary: wrongType },
    { weight: 1, arbitrary: missing },
    { weight: 1, arbitrary: unknownFields },
    { weight: 1, arbitrary: pureJunk },
  );
}

/** The two SQLite consistency checks; both must come back clean. */
export function dbConsistency(db: Db): { integrity: string; foreignKeyViolations: number } {
  const integrity = (db.pragma('integrity_check', { simple: true }) as string) ?? '';
  const fk = db.pragma('foreign_key_check') as unknown[];
  return { integrity, foreignKeyViolations: fk.length };
}
