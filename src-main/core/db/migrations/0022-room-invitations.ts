import type { Migration } from '../migrate.js';

/** Reserved for the change that fills it in (this session's work); until then it changes nothing. */
export const migration0022: Migration = {
  version: 22,
  name: '0022-room-invitations',
  up() {},
};
