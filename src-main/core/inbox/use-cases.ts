import { agentCaller, defineUseCase } from '../usecase/define.js';
import { PAGE_DEFAULT } from './store.js';
import { ackMentions, checkMentions } from './service.js';
import { ackMentionsInput, ackMentionsOutput, checkMentionsInput, checkMentionsOutput } from './schemas.js';

/**
 * The inbox use cases (usecase/define.ts): an agent's pull-mode mentions and task items, read and
 * acknowledged. Agents only (a tool side, no route): inbox/tools.ts lists the tools they yield.
 */

export const checkMentionsUseCase = defineUseCase({
  input: checkMentionsInput,
  output: checkMentionsOutput,
  handler: ({ core, caller }, args) =>
    checkMentions(core, {
      plate: agentCaller(caller).plate,
      rooms: args.room ? [args.room, ...(args.rooms ?? [])] : args.rooms,
      sinceSeq: args.since_seq ?? 0,
      limit: args.limit ?? PAGE_DEFAULT,
    }),
  tool: {
    name: 'check_mentions',
    title: 'Check mentions',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'Your unacknowledged mentions and task items, oldest first; use it only in pull mode (when not woken).',
  },
});

export const ackMentionsUseCase = defineUseCase({
  input: ackMentionsInput,
  output: ackMentionsOutput,
  handler: ({ core, caller }, args) => {
    const agent = agentCaller(caller);
    return { acked: ackMentions(core, { plate: agent.plate, sessionId: agent.sessionId, mentionIds: args.mention_ids, lastMentionSeq: args.last_mention_seq }) };
  },
  tool: {
    name: 'ack_mentions',
    title: 'Acknowledge mentions',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Legacy: marks inbox items handled when neither send_message nor complete_task did; returns how many were cleared.',
  },
});
