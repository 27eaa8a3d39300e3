import type { Migration } from '../migrate.js';

/**
 * The dispatcher's per-message pass looks only at wakes still to be dispatched; a partial
 * index keeps that pass independent of how many wakes wait in inboxes for pull clients.
 */
export const migration0006: Migration = {
  version: 6,
  name: '0006-wake-dispatch-index',
  up(db) {
    db.exec(`CREATE INDEX wakes_dispatchable ON wakes(plate, room_id, seq) WHERE status = 'queued' AND target IS NOT 'pull';`);
  },
};
