import { z } from 'zod';

/**
 * The records of the room use cases, declared once: the server's tools and routes use these
 * schemas, and shared/api-types.ts derives the UI's types from them (`z.output`), so the UI
 * imports types only and zod stays out of its bundle (docs/architecture.md, "Use cases").
 */

export const roomRole = z.enum(['admin', 'member']);
export const trustModeSchema = z.enum(['trust_room', 'blocked']);

/** A room as tools show it (rooms/store.ts `roomDto`). */
export const roomRecord = z.object({
  room_id: z.string(),
  name: z.string(),
  created_by: z.string(),
  cross_owner: z.boolean(),
  last_seq: z.number().int(),
  context_version: z.number().int(),
  created_at: z.string(),
});

/** A room as a human sees it: with the human's role and Trust (absent where the API does not say). */
export const humanRoomRecord = roomRecord.extend({
  role: roomRole.optional(),
  trust: trustModeSchema.optional(),
  /** Another owner added the caller and it has not accepted yet (docs/needs-you.md "Invitations"). */
  invited: z.boolean().optional(),
});

/** The owner of an agent, as a member list and the directory name it. */
export const agentOwnerRef = z.object({ owner_id: z.string(), name: z.string() });

/** `invited`: added by another owner and not yet accepted (docs/needs-you.md "Invitations"). */
export const humanMember = z.object({ kind: z.literal('human'), owner_id: z.string(), name: z.string(), handle: z.string(), role: roomRole, invited: z.boolean().optional() });

/** GET /v1/invitations: rooms another owner added the caller to, waiting for Accept or Decline. */
export const invitationRecord = z.object({
  room: z.object({ room_id: z.string(), name: z.string() }),
  role: roomRole,
  invited_by: z.object({ owner_id: z.string(), name: z.string(), handle: z.string() }).nullable(),
  invited_at: z.string(),
});
export const invitationList = z.object({ invitations: z.array(invitationRecord), total: z.number().int() });

export const agentMember = z.object({
  kind: z.literal('agent'),
  plate: z.string(),
  name: z.string(),
  handle: z.string(),
  owner: agentOwnerRef,
  revoked: z.boolean(),
});

/**
 * An agent's liveness (docs/wakes.md "Liveness"): working (a wake running, or a tool call in the
 * last 60 s), idle (a live MCP session, no recent call), stalled (a running wake with no tool
 * call for 5 minutes), offline (no live session). Health checks and pings never count.
 */
/** docs/wakes.md "Liveness": `asleep` has no live session but a mention wakes it; `offline`, nothing can. */
export const presence = z.enum(['working', 'idle', 'stalled', 'asleep', 'offline']);

/** A live instance (MCP session) of a room's agent. */
export const instanceRecord = z.object({
  instance_id: z.string(),
  handle: z.string(),
  plate: z.string(),
  host: z.string(),
  connected_at: z.string(),
  last_seen: z.string(),
  streaming: z.boolean(),
  working_on: z.array(z.object({ task_id: z.string(), title: z.string() })),
});

/** GET /v1/rooms/:id/members: the humans, the agents with their presence, the live instances. */
export const roomMembersRecord = z.object({
  humans: z.array(humanMember),
  agents: z.array(agentMember.extend({ presence: presence.optional() })),
  instances: z.array(instanceRecord),
});

/** One owner's Trust in a room, with how many live agents it has there. */
export const ownerTrust = z.object({ owner_id: z.string(), name: z.string(), handle: z.string(), mode: trustModeSchema, agents: z.number().int() });

/** GET /v1/rooms/:id/trust */
export const roomTrustRecord = z.object({ owners: z.array(ownerTrust) });
