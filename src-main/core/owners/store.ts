import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { defineMemo, recall } from '../db/watch.js';
import { newId, newSecret, sha256Hex, slugify } from '../util/ids.js';
import { AppError, invalid } from '../errors/app-error.js';
import type { Owner } from '../auth/callers.js';

/** An owner as the core shows it; the same type is the human API's caller (auth/callers.ts). */
export type { Owner };

interface OwnerRow {
  id: string;
  name: string;
  slug: string;
  plate_prefix: string;
  is_primary: number;
  allow_runners: number;
  created_at: number;
}

export function ownerDto(r: OwnerRow): Owner {
  return {
    owner_id: r.id,
    name: r.name,
    handle: `@${r.slug}`,
    plate_prefix: r.plate_prefix,
    is_primary: r.is_primary === 1,
    allow_runners: r.is_primary === 1 || r.allow_runners === 1,
    created_at: new Date(r.created_at).toISOString(),
  };
}

export function derivePlatePrefix(name: string): string {
  const letters = name.toUpperCase().replace(/[^A-Z]/g, '');
  return (letters.slice(0, 4) || 'AR').padEnd(2, 'X');
}

function uniqueSlug(db: Db, base: string): string {
  let slug = base;
  for (let i = 2; stmt(db, 'SELECT 1 FROM owners WHERE slug = ?').get(slug); i++) slug = `${base}-${i}`;
  return slug;
}

export function createOwner(
  db: Db,
  input: { name: string; platePrefix?: string; isPrimary?: boolean },
): { owner: Owner; token: string } {
  const name = input.name.trim();
  if (!name || name.length > 80) throw invalid('name must be 1 to 80 characters');
  const prefix = input.platePrefix ?? derivePlatePrefix(name);
  if (!/^[A-Z]{2,6}$/.test(prefix)) throw invalid('plate_prefix must be 2 to 6 capital letters');
  const token = newSecret('aro_');
  const id = newId('own');
  const now = Date.now();
  stmt(
    db,
    'INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ).run(id, name, uniqueSlug(db, slugify(name)), prefix, sha256Hex(token), input.isPrimary ? 1 : 0, now);
  return { owner: getOwner(db, id)!, token };
}

export function getOwner(db: Db, id: string): Owner | undefined {
  const r = stmt(db, 'SELECT * FROM owners WHERE id = ?').get(id) as OwnerRow | undefined;
  return r && ownerDto(r);
}

export function ownerByToken(db: Db, token: string): Owner | undefined {
  const r = stmt(db, 'SELECT * FROM owners WHERE token_hash = ?').get(sha256Hex(token)) as OwnerRow | undefined;
  return r && ownerDto(r);
}

/**
 * An owner's name and handle slug, read wherever an agent, a member or a sender is shown. They
 * never change once the owner exists, so a row is kept per database once read outside a
 * transaction (inside one it may yet be rolled back).
 */
const handles = new WeakMap<Db, Map<string, Readonly<{ name: string; slug: string }>>>();

export function ownerHandle(db: Db, ownerId: string): { name: string; slug: string } | undefined {
  let known = handles.get(db);
  if (!known) handles.set(db, (known = new Map()));
  const hit = known.get(ownerId);
  if (hit) return hit;
  const r = stmt(db, 'SELECT name, slug FROM owners WHERE id = ?').get(ownerId) as { name: string; slug: string } | undefined;
  if (r && !db.inTransaction) {
    if (known.size > 10_000) known.clear();
    known.set(ownerId, Object.freeze(r));
  }
  return r;
}

/** The owner whose handle is `@slug`. */
/** Owner ids by slug, until an owner is added, removed or renamed (db/watch.ts); null: no such owner. */
const idsBySlug = defineMemo<string | null>('owner_slugs', [
  { table: 'owners', on: 'INSERT' },
  { table: 'owners', on: 'DELETE' },
  { table: 'owners', on: 'UPDATE OF id, slug' },
]);

export function ownerIdBySlug(db: Db, slug: string): string | undefined {
  return recall(idsBySlug(db), slug, () => (stmt(db, 'SELECT id FROM owners WHERE slug = ?').get(slug) as { id: string } | undefined)?.id ?? null) ?? undefined;
}

/** A new token for an owner (the old one stops working); returned once, stored only hashed. */
export function rotateOwnerToken(db: Db, ownerId: string): string {
  const token = newSecret('aro_');
  stmt(db, 'UPDATE owners SET token_hash = ? WHERE id = ?').run(sha256Hex(token), ownerId);
  return token;
}

export function listOwners(db: Db): Owner[] {
  return (stmt(db, 'SELECT * FROM owners ORDER BY created_at').all() as OwnerRow[]).map(ownerDto);
}

export function primaryOwner(db: Db): Owner | undefined {
  const r = stmt(db, 'SELECT * FROM owners WHERE is_primary = 1').get() as OwnerRow | undefined;
  return r && ownerDto(r);
}

export function requireOwner(db: Db, id: string): Owner {
  const o = getOwner(db, id);
  if (!o) throw new AppError('NOT_FOUND', 'owner not found');
  return o;
}

/** May this owner configure runners? docs/security.md: code runs as this machine's user. */
export function mayRunCommands(db: Db, ownerId: string): boolean {
  return getOwner(db, ownerId)?.allow_runners === true;
}

/** The primary owner grants or takes back a secondary owner's right to configure runners. */
export function setAllowRunners(db: Db, ownerId: string, allow: boolean): Owner {
  const o = requireOwner(db, ownerId);
  if (o.is_primary) throw new AppError('CONFLICT', 'the primary owner always may configure runners; its right cannot be changed');
  stmt(db, 'UPDATE owners SET allow_runners = ? WHERE id = ?').run(allow ? 1 : 0, ownerId);
  return getOwner(db, ownerId)!;
}
