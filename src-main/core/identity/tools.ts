import { z } from 'zod';
import { agentCaller, defineUseCase } from '../usecase/define.js';
import { agentHandle, getAgentByPlate } from '../agents/store.js';
import { pendingMentions } from '../inbox/store.js';
import { maskToScopes } from '../../../shared/scopes.js';
import { AppError } from '../errors/app-error.js';
import { whoamiOutput } from './schemas.js';

/**
 * Who the calling agent is here, agents only (no route). The MCP resource it connected through
 * (`host`) is the transport's to say, so the tool adds it to what the use case answers.
 */
export const whoamiUseCase = defineUseCase({
  input: z.object({}),
  output: whoamiOutput.omit({ host: true }),
  handler: ({ core, caller: c }) => {
    const caller = agentCaller(c);
    const a = getAgentByPlate(core.db, caller.plate);
    if (!a) throw new AppError('UNAUTHENTICATED', 'agent no longer exists');
    const s = core.sessions.get(caller.sessionId);
    return {
      plate: a.plate,
      name: a.name,
      handle: agentHandle(a),
      instance_handle: s ? `${agentHandle(a)}#${s.label}` : undefined,
      owner: { owner_id: a.owner_id, name: a.owner_name },
      verified: true,
      // The agent's scopes, which its passport carries (minted from them; they never change).
      scopes: maskToScopes(a.scopes),
      pending_mentions: pendingMentions(core.db, a.plate),
      session_id: caller.sessionId,
    };
  },
  tool: {
    name: 'whoami',
    title: 'Who am I',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'Your identity here (plate, handle, owner, scopes, pending_mentions, session_id); call it in pull mode or after reconnecting, not in a wake.',
    output: whoamiOutput,
    present: (out, ctx) => ({ ...out, host: ctx.host }),
  },
});

export const identityTools = [whoamiUseCase.tool];
