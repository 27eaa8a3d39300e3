import type { Db } from '../db/open.js';
import { defineMemo } from '../db/watch.js';
import { invalid } from '../errors/app-error.js';
import { agentHandle, agentPlateBySlug, getAgentByPlate } from '../agents/store.js';
import { ownerIdBySlug } from '../owners/store.js';
import { agentPlatesOfRoom, humanRole, isAgentMember } from '../rooms/store.js';

export interface ParsedHandle {
  name: string;
  owner?: string;
  session?: string;
}

const HANDLE_RE = /^@?([a-z0-9][a-z0-9-]{0,39})(?:\(([a-z0-9][a-z0-9-]{0,39})\))?(?:#([A-Za-z0-9]{1,36}))?$/i;
export const PLATE_RE = /^[A-Z]{2,6}-AGT-[0-9A-HJKMNP-TV-Z]{6}$/;

/** Parses `@name(owner)#session` (owner and session optional). */
export function parseHandle(s: string): ParsedHandle | undefined {
  const m = HANDLE_RE.exec(s.trim());
  if (!m) return undefined;
  return { name: m[1]!.toLowerCase(), owner: m[2]?.toLowerCase(), session: m[3] };
}

export type ResolvedTarget =
  | { kind: 'agent'; plate: string; handle: string; owner_id: string; session?: string }
  | { kind: 'human'; owner_id: string; handle: string };

interface AgentMemberRow {
  plate: string;
  slug: string;
  owner_slug: string;
  owner_id: string;
}

/** The room's agents matching a parsed handle. */
export function agentCandidates(db: Db, roomId: string, h: ParsedHandle): AgentMemberRow[] {
  if (h.owner) {
    // @name(owner) names at most one agent (a slug is unique per owner): looked up, not searched for among the room's agents.
    const ownerId = ownerIdBySlug(db, h.owner);
    const plate = ownerId === undefined ? undefined : agentPlateBySlug(db, ownerId, h.name);
    const a = plate === undefined || !isAgentMember(db, roomId, plate) ? undefined : getAgentByPlate(db, plate);
    return a ? [{ plate: a.plate, slug: a.slug, owner_slug: a.owner_slug, owner_id: a.owner_id }] : [];
  }
  const rows: AgentMemberRow[] = [];
  // By plate, as the room's index keeps them: the order an ambiguity lists them in.
  for (const plate of agentPlatesOfRoom(db, roomId).sort()) {
    const a = getAgentByPlate(db, plate);
    if (a?.slug === h.name) rows.push({ plate: a.plate, slug: a.slug, owner_slug: a.owner_slug, owner_id: a.owner_id });
  }
  return rows;
}

/**
 * Targets resolved in a room, remembered until a row they were read from changes (db/watch.ts):
 * agents (plate, owner, slug, revocation), owners (slug), the room's agents and humans, the room.
 * A send resolves its targets before anything else; read cold, after the work of other requests,
 * the four lookups of a handle cost tens of microseconds on this machine, one remembered
 * answer a map lookup (docs/performance.md, "One copy of the body, and less to answer").
 */
const resolvedTargets = defineMemo<ResolvedTarget>('mention_targets', [
  { table: 'agents', on: 'INSERT' },
  { table: 'agents', on: 'DELETE' },
  { table: 'agents', on: 'UPDATE OF plate, owner_id, slug, revoked_at' },
  { table: 'owners', on: 'INSERT' },
  { table: 'owners', on: 'DELETE' },
  { table: 'owners', on: 'UPDATE OF id, slug' },
  { table: 'rooms', on: 'DELETE' },
  { table: 'rooms', on: 'UPDATE OF id' },
  { table: 'room_agents', on: 'INSERT' },
  { table: 'room_agents', on: 'DELETE' },
  { table: 'room_agents', on: 'UPDATE OF room_id, plate' },
  { table: 'room_humans', on: 'INSERT' },
  { table: 'room_humans', on: 'DELETE' },
  { table: 'room_humans', on: 'UPDATE OF room_id, owner_id, role' },
]);

/**
 * Resolves a structured mention target (a handle or a plate) to a member of the room.
 * Unknown, ambiguous or non-member targets are refused with the reason, never guessed (a
 * refusal is not remembered). The answer is shared: callers do not change it.
 */
export function resolveTarget(db: Db, roomId: string, target: string): ResolvedTarget {
  const memo = resolvedTargets(db);
  const key = `${roomId}\n${target}`;
  const known = memo?.get(key);
  if (known) return known;
  const r = resolveUnremembered(db, roomId, target);
  memo?.set(key, r);
  return r;
}

function resolveUnremembered(db: Db, roomId: string, target: string): ResolvedTarget {
  const t = target.trim();
  if (PLATE_RE.test(t)) {
    const a = getAgentByPlate(db, t);
    if (!a || !isAgentMember(db, roomId, t)) {
      throw invalid(`mention target ${t} is not an agent in this room; call list_members`, 'unknown_mention_target');
    }
    return { kind: 'agent', plate: a.plate, handle: agentHandle(a), owner_id: a.owner_id };
  }
  const h = parseHandle(t);
  if (!h) throw invalid(`mention target "${t.slice(0, 80)}" is not a handle (@name(owner)) or plate`, 'bad_mention_target');
  const agents = agentCandidates(db, roomId, h);
  if (agents.length > 1) {
    throw invalid(
      `mention target @${h.name} is ambiguous; use one of ${agents.map((a) => `@${a.slug}(${a.owner_slug})`).join(', ')}`,
      'ambiguous_mention_target',
    );
  }
  if (agents.length === 1) {
    const a = agents[0]!;
    return { kind: 'agent', plate: a.plate, handle: `@${a.slug}(${a.owner_slug})`, owner_id: a.owner_id, session: h.session };
  }
  if (!h.owner) {
    const ownerId = ownerIdBySlug(db, h.name);
    if (ownerId && humanRole(db, roomId, ownerId)) return { kind: 'human', owner_id: ownerId, handle: `@${h.name}` };
  }
  throw invalid(`no member ${t.slice(0, 80)} in this room; call list_members`, 'unknown_mention_target');
}
