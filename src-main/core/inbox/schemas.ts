import { z } from 'zod';
import { PAGE_DEFAULT, PAGE_MAX } from './store.js';

const roomId = z.string().min(1).max(200);

export const checkMentionsInput = z.object({
  room: roomId.optional(),
  rooms: z.array(roomId).max(100).optional(),
  since_seq: z.number().int().min(0).optional().describe('Only items with a larger seq'),
  limit: z.number().int().min(1).max(PAGE_MAX).optional().describe(`Page size, default ${PAGE_DEFAULT}`),
});

/** An inbox item: a mention, or a task or handoff addressed to the agent (`task_id`). */
const inboxItem = z.object({
  mention_id: z.string(),
  seq: z.number().int(),
  kind: z.string(),
  room: z.string(),
  trust_level: z.string(),
  task_id: z.string().optional(),
  message: z
    .object({
      message_id: z.string(),
      seq: z.number().int().nullable(),
      from: z.object({ kind: z.enum(['agent', 'human']), handle: z.string() }).optional(),
      body: z.string().nullable(),
    })
    .optional(),
  created_at: z.string(),
});

export const checkMentionsOutput = z.object({ items: z.array(inboxItem), next_since_seq: z.number().int(), has_more: z.boolean() });

export const ackMentionsInput = z.object({
  mention_ids: z.array(z.string().min(1).max(200)).max(500).optional(),
  last_mention_seq: z.number().int().min(0).optional(),
});

export const ackMentionsOutput = z.object({ acked: z.number().int() });
