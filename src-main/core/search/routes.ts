import type { z } from 'zod';
import { defineRoute } from '../http/router.js';
import { roomsOfOwner, search } from './service.js';
import { searchQuery } from './schemas.js';

const searchOf = (q: z.infer<typeof searchQuery>) => ({ query: q.q ?? '', kinds: q.kinds, limit: q.limit, cursor: q.cursor });

/** Full-text search for humans: one room, or every room the caller is in (docs/search.md). */
export const searchRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/rooms/:id/search',
    room: 'member',
    query: searchQuery,
    handler: ({ core, room }, { query }) => search(core.db, { rooms: [room.id], ...searchOf(query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/search',
    query: searchQuery,
    handler: ({ core, owner }, { query }) => search(core.db, { rooms: roomsOfOwner(core.db, owner.owner_id), ...searchOf(query) }),
  }),
];
