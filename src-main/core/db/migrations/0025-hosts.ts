import type { Migration } from '../migrate.js';
import { rebuildTable, replacing } from './rebuild.js';

/**
 * Host names are checked in code, not in SQL (docs/hosts.md "Adding a host"): the runners
 * table loses its `CHECK (host IN ('claude-code', 'codex', 'gemini', 'cursor'))`, so a host
 * added as an adapter (src-main/core/hosts/) needs no migration of its own. The route that saves
 * a runner checks the name against the adapters (wakes/service.ts hostParam). SQLite cannot drop
 * a constraint in place: the table is rebuilt from its stored definition (rebuild.ts), every row,
 * index and column that later migrations added kept as it was.
 */
export const migration0025: Migration = {
  version: 25,
  name: '0025-hosts',
  up(db) {
    rebuildTable(db, 'runners', replacing('runners', [`host TEXT NOT NULL CHECK (host IN ('claude-code', 'codex', 'gemini', 'cursor'))`, 'host TEXT NOT NULL']));
  },
};
