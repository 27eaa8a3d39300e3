import { endpoint } from './contract.js';
import { searchOutput, searchQuery } from '../schemas/search.js';

/** The search endpoints (docs/search.md): one room's messages, tasks, decisions and files, or every room of the caller's. */
export const search = {
  room: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/search',
    summary: "Full-text search of one room, best first (q: the words; kinds: comma-separated).",
    query: searchQuery,
    output: searchOutput,
  }),
  all: endpoint({
    method: 'GET',
    path: '/v1/search',
    summary: 'Full-text search of every room the caller is in, best first.',
    query: searchQuery,
    output: searchOutput,
  }),
};
