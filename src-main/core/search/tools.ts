import { z } from 'zod';
import { defineTool } from '../mcp/tool.js';
import { requireAgentRoom } from '../rooms/store.js';
import { search, SEARCH_KINDS, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from './service.js';

export const searchTools = [
  defineTool({
    name: 'search',
    scope: 'READ',
    title: 'Search the room',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description:
      'Full-text search of one room you are in: messages, tasks (title, detail, handoff notes), decisions and files (path, text contents). Use it instead of paging history to find something said or written earlier. query is plain words, all of which must match (no operators). Ranked best first; each result has kind, id, a plain-text snippet with highlights ([start, end) offsets), and seq, task_id or path. Returns {results, next_cursor}.',
    input: z.object({
      room: z.string().min(1).max(200).describe('Room id (room_…), from list_rooms'),
      query: z.string().max(1000).describe('Plain words, e.g. flaky cart_total spec'),
      kinds: z.array(z.enum(SEARCH_KINDS)).max(4).optional().describe('Only these kinds'),
      limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).optional().describe(`Results per page (default ${SEARCH_LIMIT_DEFAULT})`),
      cursor: z.string().min(1).max(200).optional().describe('next_cursor of the previous page'),
    }),
    handler: (ctx, a) => {
      requireAgentRoom(ctx.core.db, a.room, ctx.agent.plate);
      return search(ctx.core.db, { rooms: [a.room], query: a.query, kinds: a.kinds, limit: a.limit, cursor: a.cursor });
    },
  }),
];
