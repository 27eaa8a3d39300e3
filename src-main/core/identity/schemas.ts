import { z } from 'zod';
import { SCOPE_NAMES, type ScopeName } from '../../../shared/scopes.js';

/** whoami's result: who this connection is, as the server knows it. */
export const whoamiOutput = z.object({
  plate: z.string(),
  name: z.string(),
  handle: z.string(),
  instance_handle: z.string().optional(),
  owner: z.object({ owner_id: z.string(), name: z.string() }),
  verified: z.boolean(),
  scopes: z.array(z.enum(SCOPE_NAMES as [ScopeName, ...ScopeName[]])),
  pending_mentions: z.number().int(),
  session_id: z.string(),
  host: z.string(),
});
