import { z } from 'zod';
import { defineTool } from '../mcp/tool.js';
import { requireAgentRoom } from '../rooms/store.js';
import { search, SEARCH_KINDS, SEARCH_LIMIT_MAX } from './service.js';

export const searchTools = [
  defineTool({
    name: 'search',
    scope: 'READ',
    title: 'Search the room',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description:
      'Full-text search of a room you are in: messages, tasks, decisions, files (path and text). Use it instead of paging history to find something said or written earlier. query: plain words, all must match. Best first; each result: kind, id, plain snippet with highlights ([start, end) offsets), seq, task_id or path. Returns {results, next_cursor}.',
    input: z.object({
      room: z.string().min(1).max(200).describe('Room id (room_…), from list_rooms'),
      query: z.string().max(1000).describe('Plain words, e.g. flaky cart_total spec'),
      kinds: z.array(z.enum(SEARCH_KINDS)).max(4).optional(),
      limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).optional(),
      cursor: z.string().min(1).max(200).optional(),
    }),
    handler: (ctx, a) => {
      requireAgentRoom(ctx.core.db, a.room, ctx.agent.plate);
      return search(ctx.core.db, { rooms: [a.room], query: a.query, kinds: a.kinds, limit: a.limit, cursor: a.cursor });
    },
  }),
];
