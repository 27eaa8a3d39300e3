import { z } from 'zod';
import { roomIdArg } from '../rooms/schemas.js';
import { agentOwnerRef } from '../agents/schemas.js';
import { instanceRecord } from '../../../shared/schemas/rooms.js';
import { PLATE_RE } from './handles.js';

export const resolveHandleInput = z.object({ room: roomIdArg, handle: z.string().min(1).max(120) });

export const listInstancesInput = z.object({ room: roomIdArg, plate: z.string().regex(PLATE_RE, 'not a plate').optional() });

export const resolveHandleOutput = z.object({
  handle: z.string(),
  candidates: z.array(
    z.object({ plate: z.string(), name: z.string(), handle: z.string(), owner: agentOwnerRef, instances: z.array(instanceRecord) }),
  ),
});

export const listInstancesOutput = z.object({ instances: z.array(instanceRecord) });
