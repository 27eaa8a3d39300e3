import type { Core } from '../context.js';
import type { McpSession } from '../sessions.js';
import { credentialPurpose } from '../agents/store.js';

export const CHANNEL_METHOD = 'notifications/claude/channel';

/**
 * How long a pushed wake may wait for the session to take it (any tool call of that session)
 * before it goes to the runner or the inbox instead: a session that dropped the push (Claude
 * Code without a working channel) must not hold the wake for the full timeout.
 */
export function channelAckMs(): number {
  const v = Number(process.env.AGENT_ROOMS_CHANNEL_ACK_MS);
  return Number.isFinite(v) && v > 0 ? v : 15_000;
}

/** How long a pushed wake may wait for the instance to act in the room before it is failed. */
export function channelTimeoutMs(): number {
  const v = Number(process.env.AGENT_ROOMS_CHANNEL_TIMEOUT_MS);
  return Number.isFinite(v) && v > 0 ? v : 10 * 60 * 1000;
}

function isRunnerCredential(core: Core, credentialId: string): boolean {
  return credentialPurpose(core.db, credentialId) === 'runner';
}

/**
 * The agent's most recent live /mcp/claude-code session that opted in to channel delivery and
 * holds a GET stream (decisions.md "Wakes"). Sessions a spawned runner opened with its run
 * credential are not channel targets.
 */
export function channelSessionOf(core: Core, plate: string): McpSession | undefined {
  let best: McpSession | undefined;
  for (const s of core.sessions.ofPlate(plate)) {
    if (s.host !== 'claude-code' || !s.channels || s.getStreams <= 0) continue;
    if (best && best.createdAt > s.createdAt) continue;
    if (isRunnerCredential(core, s.credentialId)) continue;
    best = s;
  }
  return best;
}

/** Pushes the wake into the session's GET stream: the content verbatim, the envelope as string meta. */
export async function pushChannel(session: McpSession, content: string, meta: Record<string, string>): Promise<void> {
  await session.server.notification({ method: CHANNEL_METHOD, params: { content, meta } });
}
