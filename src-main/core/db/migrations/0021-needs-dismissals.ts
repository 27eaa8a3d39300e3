import type { Migration } from '../migrate.js';

/** Reserved for the change that fills it in (this session's work); until then it changes nothing. */
export const migration0021: Migration = {
  version: 21,
  name: '0021-needs-dismissals',
  up() {},
};
