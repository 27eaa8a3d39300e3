import { z } from 'zod';
import { defineTool } from '../mcp/tool.js';
import { agentHandle, getAgentByPlate } from '../agents/store.js';
import { pendingMentions } from '../inbox/store.js';
import { maskToScopes } from '../../../shared/scopes.js';
import { AppError } from '../errors/app-error.js';
import { whoamiOutput } from './schemas.js';

export const identityTools = [
  defineTool({
    name: 'whoami',
    title: 'Who am I',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'Your identity here (plate, handle, owner, scopes, pending_mentions, session_id); call it in pull mode or after reconnecting, not in a wake.',
    input: z.object({}),
    output: whoamiOutput,
    handler: (ctx) => {
      const a = getAgentByPlate(ctx.core.db, ctx.agent.plate);
      if (!a) throw new AppError('UNAUTHENTICATED', 'agent no longer exists');
      const s = ctx.core.sessions.get(ctx.sessionId);
      return {
        plate: a.plate,
        name: a.name,
        handle: agentHandle(a),
        instance_handle: s ? `${agentHandle(a)}#${s.label}` : undefined,
        owner: { owner_id: a.owner_id, name: a.owner_name },
        verified: true,
        scopes: maskToScopes(ctx.agent.scopes),
        pending_mentions: pendingMentions(ctx.core.db, a.plate),
        session_id: ctx.sessionId,
        host: ctx.host,
      };
    },
  }),
];
