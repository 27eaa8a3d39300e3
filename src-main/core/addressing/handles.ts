import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { invalid } from '../errors/app-error.js';
import { agentHandle, getAgentByPlate } from '../agents/store.js';

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
  const rows = stmt(
    db,
    `SELECT a.plate, a.slug, o.slug AS owner_slug, a.owner_id FROM room_agents ra
     JOIN agents a ON a.plate = ra.plate JOIN owners o ON o.id = a.owner_id
     WHERE ra.room_id = ? AND a.slug = ?`,
  ).all(roomId, h.name) as AgentMemberRow[];
  return h.owner ? rows.filter((r) => r.owner_slug === h.owner) : rows;
}

/**
 * Resolves a structured mention target (a handle or a plate) to a member of the room.
 * Unknown, ambiguous or non-member targets are refused with the reason, never guessed.
 */
export function resolveTarget(db: Db, roomId: string, target: string): ResolvedTarget {
  const t = target.trim();
  if (PLATE_RE.test(t)) {
    const a = getAgentByPlate(db, t);
    if (!a || !stmt(db, 'SELECT 1 FROM room_agents WHERE room_id = ? AND plate = ?').get(roomId, t)) {
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
    const human = stmt(
      db,
      'SELECT o.id, o.slug FROM room_humans rh JOIN owners o ON o.id = rh.owner_id WHERE rh.room_id = ? AND o.slug = ?',
    ).get(roomId, h.name) as { id: string; slug: string } | undefined;
    if (human) return { kind: 'human', owner_id: human.id, handle: `@${human.slug}` };
  }
  throw invalid(`no member ${t.slice(0, 80)} in this room; call list_members`, 'unknown_mention_target');
}
