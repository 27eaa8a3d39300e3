import { isAbsolute } from 'node:path';
import { z } from 'zod';
import type { LegacyRoute } from '../http/router.js';
import { Status } from '../http/router.js';
import { parseWith } from '../http/validate.js';
import { AppError, toAppError } from '../errors/app-error.js';
import { backupNow, backupStatus } from './service.js';
import { newErrorId, recordEvidence } from '../evidence/store.js';
import type { BackupProgress } from './backup.js';

function primaryOnly(owner: { is_primary: boolean }) {
  if (!owner.is_primary) throw new AppError('FORBIDDEN', 'only the primary owner may see or take backups of this home');
}

/**
 * `GET /v1/backups`: the last backup, the snapshots in `<home>/backups`, the schedule.
 * `POST /v1/backups {dest?}`: a verified backup now, through this server's own connection.
 * With `Accept: application/x-ndjson` the answer streams progress lines, then
 * `{"result": …}` or `{"error": …}` (the command line shows them); otherwise it is one JSON.
 */
export const backupRoutes: LegacyRoute[] = [
  {
    method: 'GET',
    path: '/v1/backups',
    handler: ({ core, owner }) => {
      primaryOnly(owner);
      return backupStatus(core);
    },
  },
  {
    method: 'POST',
    path: '/v1/backups',
    handler: async ({ core, owner, body, req, res }) => {
      primaryOnly(owner);
      const input = parseWith(z.object({ dest: z.string().min(1).max(4096).optional() }).strict(), body);
      if (input.dest !== undefined && !isAbsolute(input.dest)) throw new AppError('INVALID_ARGUMENT', 'dest must be an absolute path');
      const streaming = /application\/x-ndjson/.test(String(req.headers.accept ?? ''));
      if (!streaming) return new Status(201, await backupNow(core, { dest: input.dest, kind: 'manual' }));
      res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' });
      let lastSent = 0;
      const onProgress = (p: BackupProgress) => {
        const now = Date.now();
        if (now - lastSent < 200 && p.done !== p.total) return;
        lastSent = now;
        res.write(JSON.stringify({ progress: p }) + '\n');
      };
      try {
        const result = await backupNow(core, { dest: input.dest, kind: 'manual', onProgress });
        res.end(JSON.stringify({ result }) + '\n');
      } catch (err) {
        const e = toAppError(err);
        const errorId = newErrorId();
        recordEvidence(core.db, { errorId, surface: 'v1', tool: 'POST /v1/backups', error: e, args: body, knownArgs: new Set(['dest']), ownerId: owner.owner_id });
        res.end(JSON.stringify({ error: { code: e.code, message: e.message, error_id: errorId } }) + '\n');
      }
    },
  },
];
