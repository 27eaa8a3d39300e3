import { z } from 'zod';
import { roomIdArg } from '../rooms/schemas.js';
import { agentOwnerRef } from '../agents/schemas.js';
import { PLATE_RE } from './handles.js';

export const resolveHandleInput = z.object({ room: roomIdArg, handle: z.string().min(1).max(120) });

export const listInstancesInput = z.object({ room: roomIdArg, plate: z.string().regex(PLATE_RE, 'not a plate').optional() });

/** A live instance (one MCP session) of a room's agent (addressing/instances.ts `instancesOf`). */
const instanceRecord = z.object({
  instance_id: z.string(),
  handle: z.string(),
  plate: z.string(),
  host: z.string(),
  connected_at: z.string(),
  last_seen: z.string(),
  streaming: z.boolean(),
  working_on: z.array(z.object({ task_id: z.string(), title: z.string() })),
});

export const resolveHandleOutput = z.object({
  handle: z.string(),
  candidates: z.array(
    z.object({ plate: z.string(), name: z.string(), handle: z.string(), owner: agentOwnerRef, instances: z.array(instanceRecord) }),
  ),
});

export const listInstancesOutput = z.object({ instances: z.array(instanceRecord) });
