import { z } from 'zod';
import { endpoint } from './contract.js';
import { backupRecord, backupStatus } from '../schemas/backup.js';

/** The backup endpoints (docs/backup.md), the primary owner's only: a backup holds every room of the home. */

/** POST /v1/backups: where to write the backup (default `<home>/backups`). */
export const backupBody = z.object({ dest: z.string().min(1).max(4096).optional() }).strict();

export const backup = {
  read: endpoint({
    method: 'GET',
    path: '/v1/backups',
    summary: 'The last backup, the snapshots in `<home>/backups`, the one running, the schedule.',
    auth: 'primary',
    output: backupStatus,
  }),
  /**
   * A transport route (docs/architecture.md "Transport routes"): with `Accept: application/x-ndjson`
   * it streams `{"progress": …}` lines, then `{"result": …}` or `{"error": …}`; otherwise it answers
   * the backup as one JSON record (201), which `output` describes.
   */
  create: endpoint({
    method: 'POST',
    path: '/v1/backups',
    summary: 'Takes a verified backup now, through the server’s own connection (progress as JSON lines when asked).',
    auth: 'primary',
    body: backupBody,
    output: backupRecord,
    status: 201,
    answer: 'stream',
  }),
};
