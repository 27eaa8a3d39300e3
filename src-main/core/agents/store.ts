import { immediate, type Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { defineMemo, recall } from '../db/watch.js';
import { newId, newSecret, randomBase32, sha256Hex, slugify } from '../util/ids.js';
import { AppError, invalid } from '../errors/app-error.js';
import { maskToScopes } from '../../../shared/scopes.js';
import type { z } from 'zod';
import type { agentRecord } from '../../../shared/schemas/agents.js';
import { getOwner, ownerHandle } from '../owners/store.js';

export interface AgentRow {
  id: string;
  plate: string;
  owner_id: string;
  name: string;
  slug: string;
  scopes: number;
  revoked_at: number | null;
  created_at: number;
  owner_slug: string;
  owner_name: string;
}

/** An agent as the human API shows it (shared/schemas/agents.ts `agentRecord`, which the UI reads too). */
export type AgentDto = z.output<typeof agentRecord>;

type AgentColumns = Omit<AgentRow, 'owner_slug' | 'owner_name'>;

/** The row with its owner's slug and name (owners/store.ts keeps those). */
function withOwner(db: Db, r: AgentColumns | undefined): AgentRow | undefined {
  const o = r && ownerHandle(db, r.owner_id);
  return o && { ...r!, owner_slug: o.slug, owner_name: o.name };
}

export function agentHandle(a: { slug: string; owner_slug: string }): string {
  return `@${a.slug}(${a.owner_slug})`;
}

export function agentDto(a: AgentRow): AgentDto {
  return {
    agent_id: a.id,
    plate: a.plate,
    name: a.name,
    handle: agentHandle(a),
    owner: { owner_id: a.owner_id, name: a.owner_name },
    scopes: maskToScopes(a.scopes),
    revoked: a.revoked_at !== null,
    created_at: new Date(a.created_at).toISOString(),
  };
}

/**
 * Agent rows by plate, read on nearly every call (senders, mentions, wakes). This module is
 * the only writer of agents (and owners' names and slugs never change), so a row is kept
 * until an agent is created or revoked here.
 */
const agentsByPlate = new WeakMap<Db, Map<string, Readonly<AgentRow>>>();

function forgetAgents(db: Db): void {
  agentsByPlate.get(db)?.clear();
}

export function getAgentByPlate(db: Db, plate: string): AgentRow | undefined {
  let rows = agentsByPlate.get(db);
  if (!rows) agentsByPlate.set(db, (rows = new Map()));
  const known = rows.get(plate);
  if (known) return known as AgentRow;
  const row = withOwner(db, stmt(db, 'SELECT * FROM agents WHERE plate = ?').get(plate) as AgentColumns | undefined);
  // Inside a transaction the row may yet be rolled back: use it, do not keep it.
  if (row && !db.inTransaction) {
    if (rows.size > 10_000) rows.clear();
    rows.set(plate, Object.freeze(row));
  }
  return row;
}

/** The plate of an owner's agent by its slug (unique per owner), if any. */
/** Plates by (owner, slug), until an agent is added, removed or renamed (db/watch.ts); null: no such agent. */
const platesBySlug = defineMemo<string | null>('agent_slugs', [
  { table: 'agents', on: 'INSERT' },
  { table: 'agents', on: 'DELETE' },
  { table: 'agents', on: 'UPDATE OF plate, owner_id, slug' },
]);

export function agentPlateBySlug(db: Db, ownerId: string, slug: string): string | undefined {
  const read = () => (stmt(db, 'SELECT plate FROM agents WHERE owner_id = ? AND slug = ?').get(ownerId, slug) as { plate: string } | undefined)?.plate ?? null;
  return recall(platesBySlug(db), `${ownerId}\n${slug}`, read) ?? undefined;
}

export function getAgentById(db: Db, id: string): AgentRow | undefined {
  return withOwner(db, stmt(db, 'SELECT * FROM agents WHERE id = ?').get(id) as AgentColumns | undefined);
}

export function listAgentsOfOwner(db: Db, ownerId: string): AgentRow[] {
  return (stmt(db, 'SELECT * FROM agents WHERE owner_id = ? ORDER BY created_at').all(ownerId) as AgentColumns[]).flatMap((r) => withOwner(db, r) ?? []);
}

export function createAgent(db: Db, ownerId: string, name: string, scopes: number): AgentRow {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 80) throw invalid('name must be 1 to 80 characters');
  const owner = getOwner(db, ownerId);
  if (!owner) throw new AppError('NOT_FOUND', 'owner not found');
  const slug = slugify(trimmed);
  if (stmt(db, 'SELECT 1 FROM agents WHERE owner_id = ? AND slug = ?').get(ownerId, slug)) {
    throw new AppError('CONFLICT', `you already have an agent whose handle is @${slug}; choose another name`);
  }
  const id = newId('agt');
  forgetAgents(db);
  for (let attempt = 0; ; attempt++) {
    const plate = `${owner.plate_prefix}-AGT-${randomBase32(6)}`;
    try {
      stmt(
        db,
        'INSERT INTO agents (id, plate, owner_id, name, slug, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ).run(id, plate, ownerId, trimmed, slug, scopes, Date.now());
      break;
    } catch (err) {
      if (attempt > 5 || !String((err as Error).message).includes('agents.plate')) throw err;
    }
  }
  return getAgentById(db, id)!;
}

/** The plates of an owner's agents (revoked ones too). */
export function platesOfOwner(db: Db, ownerId: string): string[] {
  return (stmt(db, 'SELECT plate FROM agents WHERE owner_id = ?').all(ownerId) as Array<{ plate: string }>).map((r) => r.plate);
}

/**
 * An SQL condition for a query of another capability that must stay one query (path
 * reservations live only while their holder does): the agent `plateSql` exists, not revoked.
 */
export function agentActiveSql(plateSql: string): string {
  return `EXISTS (SELECT 1 FROM agents a WHERE a.plate = ${plateSql} AND a.revoked_at IS NULL)`;
}

export function revokeAgent(db: Db, plate: string): void {
  forgetAgents(db);
  stmt(db, 'UPDATE agents SET revoked_at = ? WHERE plate = ? AND revoked_at IS NULL').run(Date.now(), plate);
}

export interface CredentialRow {
  id: string;
  agent_id: string;
  device_id: string;
  revoked_at: number | null;
  purpose: string;
  created_at: number;
}

/** A new credential (and device) for an agent; the secret is returned once and stored only hashed. */
export function createCredential(
  db: Db,
  agentId: string,
  deviceName: string | undefined,
  purpose = 'user',
): { credentialId: string; credential: string; deviceId: string } {
  const deviceId = newId('dev');
  const credentialId = newId('cred');
  const credential = newSecret('ark_');
  const now = Date.now();
  immediate(db, () => {
    stmt(db, 'INSERT INTO devices (id, agent_id, name, created_at) VALUES (?, ?, ?, ?)').run(
      deviceId,
      agentId,
      (deviceName ?? 'default').slice(0, 80),
      now,
    );
    stmt(
      db,
      'INSERT INTO credentials (id, agent_id, device_id, secret_hash, purpose, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(credentialId, agentId, deviceId, sha256Hex(credential), purpose, now);
  });
  return { credentialId, credential, deviceId };
}

export function credentialBySecret(db: Db, secret: string): CredentialRow | undefined {
  return stmt(db, 'SELECT * FROM credentials WHERE secret_hash = ?').get(sha256Hex(secret)) as
    | CredentialRow
    | undefined;
}

export function listCredentials(db: Db, agentId: string) {
  return (
    stmt(
      db,
      `SELECT c.id, c.device_id, d.name AS device_name, c.purpose, c.revoked_at, d.revoked_at AS device_revoked_at, c.created_at
       FROM credentials c JOIN devices d ON d.id = c.device_id WHERE c.agent_id = ? ORDER BY c.created_at`,
    ).all(agentId) as Array<{
      id: string;
      device_id: string;
      device_name: string;
      purpose: string;
      revoked_at: number | null;
      device_revoked_at: number | null;
      created_at: number;
    }>
  ).map((c) => ({
    credential_id: c.id,
    device_id: c.device_id,
    device: c.device_name,
    purpose: c.purpose,
    revoked: c.revoked_at !== null || c.device_revoked_at !== null,
    created_at: new Date(c.created_at).toISOString(),
  }));
}

/** Revocation checks that passed, until a row they read changes (db/watch.ts). */
const passedRevocation = defineMemo<true>(
  'revocation',
  ['agents', 'credentials', 'devices'].flatMap((table) => [
    { table, on: 'INSERT' },
    { table, on: 'DELETE' },
    { table, on: table === 'credentials' ? 'UPDATE OF id, revoked_at, agent_id, device_id' : 'UPDATE OF id, revoked_at' },
  ]),
);

/**
 * Is any of agent, credential or device revoked? Checked on every call. A check that passed is
 * remembered until a row it read changes (db/watch.ts), so a revocation refuses the very next call.
 */
export function isRevoked(db: Db, agentId: string, credentialId: string, deviceId: string): boolean {
  const passed = passedRevocation(db);
  const key = `${agentId}\n${credentialId}\n${deviceId}`;
  if (passed?.get(key)) return false;
  const revoked = readRevoked(db, agentId, credentialId, deviceId);
  if (!revoked) passed?.set(key, true);
  return revoked;
}

function readRevoked(db: Db, agentId: string, credentialId: string, deviceId: string): boolean {
  const r = stmt(
    db,
    `SELECT a.revoked_at AS a, c.revoked_at AS c, d.revoked_at AS d
     FROM agents a JOIN credentials c ON c.agent_id = a.id JOIN devices d ON d.id = c.device_id
     WHERE a.id = ? AND c.id = ? AND d.id = ?`,
  ).get(agentId, credentialId, deviceId) as { a: number | null; c: number | null; d: number | null } | undefined;
  return !r || r.a !== null || r.c !== null || r.d !== null;
}

/** What a credential is for: 'user' (given to a person) or 'runner' (minted for one run). */
export function credentialPurpose(db: Db, credentialId: string): string | undefined {
  return (stmt(db, 'SELECT purpose FROM credentials WHERE id = ?').get(credentialId) as { purpose: string } | undefined)?.purpose;
}

export function credentialOwner(db: Db, credentialId: string): { owner_id: string; plate: string } | undefined {
  return stmt(
    db,
    'SELECT a.owner_id, a.plate FROM credentials c JOIN agents a ON a.id = c.agent_id WHERE c.id = ?',
  ).get(credentialId) as { owner_id: string; plate: string } | undefined;
}

export function deviceOwner(db: Db, deviceId: string): { owner_id: string; plate: string } | undefined {
  return stmt(
    db,
    'SELECT a.owner_id, a.plate FROM devices d JOIN agents a ON a.id = d.agent_id WHERE d.id = ?',
  ).get(deviceId) as { owner_id: string; plate: string } | undefined;
}

export function revokeCredential(db: Db, credentialId: string): void {
  stmt(db, 'UPDATE credentials SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(Date.now(), credentialId);
}

export function revokeDevice(db: Db, deviceId: string): void {
  stmt(db, 'UPDATE devices SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(Date.now(), deviceId);
}

/**
 * Deletes a run's credential and its device once the run ended (docs/wakes.md "Run
 * credentials"): a deleted credential authenticates nothing, and the wake log keeps the audit
 * (run_credential_id), so the rows do not grow with every wake. Only runner credentials.
 */
export function deleteRunnerCredential(db: Db, credentialId: string): void {
  immediate(db, () => {
    const c = stmt(db, "SELECT device_id FROM credentials WHERE id = ? AND purpose = 'runner'").get(credentialId) as { device_id: string } | undefined;
    if (!c) return;
    stmt(db, 'DELETE FROM credentials WHERE id = ?').run(credentialId);
    stmt(db, 'DELETE FROM devices WHERE id = ? AND NOT EXISTS (SELECT 1 FROM credentials WHERE device_id = ?)').run(c.device_id, c.device_id);
  });
}

/** Every revoked runner credential (runs that ended before a restart, or an older build): deleted with its device. */
export function pruneRevokedRunnerCredentials(db: Db): number {
  const ids = stmt(db, "SELECT id FROM credentials WHERE purpose = 'runner' AND revoked_at IS NOT NULL").all() as Array<{ id: string }>;
  for (const { id } of ids) deleteRunnerCredential(db, id);
  return ids.length;
}
