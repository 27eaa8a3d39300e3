import type { Core } from '../core.js';
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
 * Sessions known not to show channel pushes: they let a push go untaken (Claude Code with
 * `--channels` but no claude.ai sign-in ignores channels silently). Later wakes skip them and
 * go to the runner at once instead of waiting out the ack window again (docs/wakes.md).
 */
const deafSessions = new WeakSet<McpSession>();

/** A push this session did not take: it does not show channels, so it is no longer a channel target. */
export function markChannelDeaf(session: McpSession): void {
  deafSessions.add(session);
}

/** Why a wake fell back from a session's channel to the runner or the inbox (recorded, never null). */
export function channelFallbackReason(sessionAlive: boolean): string {
  return sessionAlive
    ? `the channel session did not take the push within ${channelAckMs()} ms (it does not show channels; later wakes skip it)`
    : 'the channel session closed before taking the push';
}

/**
 * The agent's most recent live /mcp/claude-code session that opted in to channel delivery and
 * holds a GET stream (docs/wakes.md). Sessions a spawned runner opened with its run
 * credential, and sessions known not to show channels, are not channel targets.
 */
export function channelSessionOf(core: Core, plate: string): McpSession | undefined {
  let best: McpSession | undefined;
  for (const s of core.sessions.ofPlate(plate)) {
    if (s.host !== 'claude-code' || !s.channels || s.getStreams <= 0 || deafSessions.has(s)) continue;
    if (best && best.createdAt > s.createdAt) continue;
    if (isRunnerCredential(core, s.credentialId)) continue;
    best = s;
  }
  return best;
}

/** The session, when it is one a wake may be pushed to (it opted in to channels): only such a session can hold channel wakes. */
export function channelInstanceOf(core: Core, sessionId: string | undefined): string | undefined {
  return sessionId && core.sessions.get(sessionId)?.channels ? sessionId : undefined;
}

/** Pushes the wake into the session's GET stream: the content verbatim, the envelope as string meta. */
export async function pushChannel(session: McpSession, content: string, meta: Record<string, string>): Promise<void> {
  await session.server.notification({ method: CHANNEL_METHOD, params: { content, meta } });
}
