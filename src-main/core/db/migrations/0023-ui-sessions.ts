import type { Migration } from '../migrate.js';

/** Reserved for the change that fills it in (this session's work); until then it changes nothing. */
export const migration0023: Migration = {
  version: 23,
  name: '0023-ui-sessions',
  up() {},
};
