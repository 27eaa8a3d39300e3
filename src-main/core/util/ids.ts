import { randomBytes, hash } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// Ids are minted on every write: draw their randomness from a pooled buffer instead of a
// randomBytes call each (secrets below still take their own fresh bytes).
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolAt = 0;

function randomPoolBytes(n: number): Buffer {
  if (poolAt + n > pool.length) {
    pool = randomBytes(Math.max(POOL_SIZE, n));
    poolAt = 0;
  }
  const out = pool.subarray(poolAt, poolAt + n);
  poolAt += n;
  return out;
}

/** `n` random Crockford base32 characters. */
export function randomBase32(n: number): string {
  const bytes = randomPoolBytes(n);
  let out = '';
  for (let i = 0; i < n; i++) out += CROCKFORD[bytes[i]! & 31];
  return out;
}

let lastTime = 0;
let lastRandom = '';

/** `n` as `width` Crockford base32 digits, most significant first (upper case). */
function base32(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = CROCKFORD[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}

/** A ULID: 48-bit time then 80 random bits, Crockford base32; monotonic within one process. */
export function ulid(now = Date.now()): string {
  const time = base32(now, 10);
  let random: string;
  if (now === lastTime && lastRandom) {
    random = incrementBase32(lastRandom);
  } else {
    random = randomBase32(16);
  }
  lastTime = now;
  lastRandom = random;
  return time + random;
}

function incrementBase32(s: string): string {
  const chars = s.split('');
  for (let i = chars.length - 1; i >= 0; i--) {
    const v = CROCKFORD.indexOf(chars[i]!);
    if (v < 31) {
      chars[i] = CROCKFORD[v + 1]!;
      return chars.join('');
    }
    chars[i] = '0';
  }
  return randomBase32(s.length);
}

/** A prefixed public id, e.g. `room_01J…`. */
export function newId(prefix: string): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}

/** Characters of a seq id that carry the row's seq: 8 base32 characters, 40 bits. */
const SEQ_CHARS = 8;
const SEQ_LIMIT = 32 ** SEQ_CHARS;
const LOWER = CROCKFORD.toLowerCase();

/**
 * The public id of a row whose seq is its key (wakes, inbox items; docs/performance.md, "Ids that
 * carry their row"): ULID-shaped (prefix, then 26 base32 characters: 10 of time, 8 of the seq, 8
 * random), so the row is found by its seq and the table needs no index of its ids. The id is
 * still unique (the seq is) and not guessable (40 random bits); `seqOfId` reads the seq back.
 */
export function seqId(prefix: string, seq: number, now = Date.now()): string {
  if (!Number.isSafeInteger(seq) || seq < 1 || seq >= SEQ_LIMIT) throw new Error(`seq ${seq} does not fit a seq id`);
  return `${prefix}_${base32(now, 10)}${base32(seq, SEQ_CHARS)}${randomBase32(8)}`.toLowerCase();
}

/** The seq a `seqId` of this prefix carries; undefined for a string of another shape. Whether a row has this id is for the caller to check. */
export function seqOfId(prefix: string, id: string): number | undefined {
  if (id.length !== prefix.length + 27 || !id.startsWith(prefix) || id[prefix.length] !== '_') return undefined;
  let seq = 0;
  for (let i = prefix.length + 11; i < prefix.length + 11 + SEQ_CHARS; i++) {
    const v = LOWER.indexOf(id[i]!);
    if (v < 0) return undefined;
    seq = seq * 32 + v;
  }
  return seq > 0 ? seq : undefined;
}

/**
 * The (key, id) pair a lookup by a row-carrying id binds (`WHERE seq = ? AND id = ?`): the key an
 * id minted before its table's migration maps to (`legacyKey`, read from the table's side table),
 * else the key the id carries; -1, which no row has, for an id that carries none.
 */
export function rowKey(prefix: string, id: string, legacyKey: number | undefined): [number, string] {
  return [legacyKey ?? seqOfId(prefix, id) ?? -1, id];
}

/**
 * The prefixes of every secret this server issues: agent credentials, owner tokens, UI
 * sessions, direct and confirm login links, event-stream tickets. Output masking matches them
 * all (wakes/runners.ts maskIssuedSecrets); newSecret takes no other prefix.
 */
export const ISSUED_SECRET_PREFIXES = ['ark_', 'aro_', 'ars_', 'arl_', 'arc_', 'art_'] as const;
export type IssuedSecretPrefix = (typeof ISSUED_SECRET_PREFIXES)[number];

/** An opaque secret: prefix + 32 random bytes as base64url (43 characters). */
export function newSecret(prefix: IssuedSecretPrefix): string {
  return prefix + randomBytes(32).toString('base64url');
}

export function sha256Hex(s: string | Buffer): string {
  // One-shot: no Hash object per call (this runs for every request that presents a credential).
  return hash('sha256', s, 'hex');
}

/** A lower-case slug of a display name, used in handles. */
export function slugify(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return s || 'x';
}
