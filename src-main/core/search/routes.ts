import { z } from 'zod';
import type { LegacyRoute } from '../http/router.js';
import { parseWith } from '../http/validate.js';
import { requireHumanRoom } from '../rooms/store.js';
import { roomsOfOwner, search, SEARCH_KINDS, SEARCH_LIMIT_MAX } from './service.js';

const searchQuery = z.object({
  q: z.string().max(1000).optional(),
  kinds: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(SEARCH_LIMIT_MAX).optional(),
  cursor: z.string().min(1).max(200).optional(),
});

function parse(url: URL) {
  const p = parseWith(searchQuery, Object.fromEntries(url.searchParams));
  const kinds = p.kinds ? parseWith(z.array(z.enum(SEARCH_KINDS)).max(4), p.kinds.split(',')) : undefined;
  return { query: p.q ?? '', kinds, limit: p.limit, cursor: p.cursor };
}

/** Full-text search for humans: one room, or every room the caller is in (docs/search.md). */
export const searchRoutes: LegacyRoute[] = [
  {
    method: 'GET',
    path: '/v1/rooms/:id/search',
    handler: ({ core, owner, params, url }) => {
      const room = requireHumanRoom(core.db, params.id!, owner.owner_id);
      return search(core.db, { rooms: [room.id], ...parse(url) });
    },
  },
  {
    method: 'GET',
    path: '/v1/search',
    handler: ({ core, owner, url }) => search(core.db, { rooms: roomsOfOwner(core.db, owner.owner_id), ...parse(url) }),
  },
];
