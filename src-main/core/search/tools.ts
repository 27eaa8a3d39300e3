import { defineTool } from '../mcp/tool.js';
import { search } from './service.js';
import { searchInput, searchOutput } from './schemas.js';

export const searchTools = [
  defineTool({
    name: 'search',
    scope: 'READ',
    title: 'Search the room',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description:
      'Full-text search of a room you are in: messages, tasks, decisions, files (path and text). Use it instead of paging history to find something said or written earlier. query: plain words, all must match. Best first; each result: kind, id, plain snippet with highlights ([start, end) offsets), seq, task_id or path. Returns {results, next_cursor}.',
    room: 'member',
    input: searchInput,
    output: searchOutput,
    handler: (ctx, a) => search(ctx.core.db, { rooms: [a.room], query: a.query, kinds: a.kinds, limit: a.limit, cursor: a.cursor }),
  }),
];
