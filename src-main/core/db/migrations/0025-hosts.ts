import type { Migration } from '../migrate.js';

/** Reserved for the change that fills it in (this session's work); until then it changes nothing. */
export const migration0025: Migration = {
  version: 25,
  name: '0025-hosts',
  up() {},
};
