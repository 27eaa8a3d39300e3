import type { Migration } from '../migrate.js';

/** Reserved for the change that fills it in (this session's work); until then it changes nothing. */
export const migration0024: Migration = {
  version: 24,
  name: '0024-test-rooms',
  up() {},
};
