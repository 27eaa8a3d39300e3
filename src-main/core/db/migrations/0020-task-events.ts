import type { Migration } from '../migrate.js';

/** Reserved for the change that fills it in (this session's work); until then it changes nothing. */
export const migration0020: Migration = {
  version: 20,
  name: '0020-task-events',
  up() {},
};
