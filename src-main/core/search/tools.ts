import { defineTool } from '../mcp/tool.js';
import { search } from './service.js';
import { searchInput, searchOutput } from './schemas.js';

export const searchTools = [
  defineTool({
    name: 'search',
    scope: 'READ',
    title: 'Search the room',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description: 'Full-text search of the room\'s messages, tasks, decisions and files, best first; use it instead of paging history. Returns results and next_cursor.',
    room: 'member',
    input: searchInput,
    output: searchOutput,
    handler: (ctx, a) => search(ctx.core.db, { rooms: [a.room], query: a.query, kinds: a.kinds, limit: a.limit, cursor: a.cursor }),
  }),
];
