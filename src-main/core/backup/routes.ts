import { isAbsolute } from 'node:path';
import { defineRoute, Status } from '../http/router.js';
import { AppError, toAppError } from '../errors/app-error.js';
import { contracts } from '../../../shared/contracts/index.js';
import { backupBody } from '../../../shared/contracts/backup.js';
import { defineUseCase } from '../usecase/define.js';
import { backupNow, backupStatus } from './service.js';
import { newErrorId, recordEvidence } from '../evidence/store.js';
import type { BackupProgress } from './backup.js';

/**
 * `GET /v1/backups`: the last backup, the snapshots in `<home>/backups`, the schedule.
 * `POST /v1/backups {dest?}`: a verified backup now, through this server's own connection.
 * With `Accept: application/x-ndjson` the answer streams progress lines, then
 * `{"result": …}` or `{"error": …}` (the command line shows them); otherwise it is one JSON.
 * Both are the primary owner's: a backup holds every room of this home.
 */
const BACKUPS_PRIMARY_ONLY = 'only the primary owner may see or take backups of this home';

export const backupStatusUseCase = defineUseCase({
  route: { contract: contracts.backup.read, notPrimary: BACKUPS_PRIMARY_ONLY },
  handler: ({ core }) => backupStatus(core),
});

const create = contracts.backup.create;

/**
 * A transport route (docs/architecture.md "Transport routes"): it writes its progress lines to
 * the response itself, so it stays a `defineRoute`; it takes its method and path from its
 * contract and answers what the contract says (auth, body, 201).
 */
const backupNowRoute = defineRoute({
  method: create.method,
  path: create.path,
  auth: 'primary',
  notPrimary: BACKUPS_PRIMARY_ONLY,
  body: backupBody,
  handler: async ({ core, owner, req, res }, { body }) => {
    if (body.dest !== undefined && !isAbsolute(body.dest)) throw new AppError('INVALID_ARGUMENT', 'dest must be an absolute path');
    const streaming = /application\/x-ndjson/.test(String(req.headers.accept ?? ''));
    if (!streaming) return new Status(201, await backupNow(core, { dest: body.dest, kind: 'manual' }));
    res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' });
    let lastSent = 0;
    const onProgress = (p: BackupProgress) => {
      const now = Date.now();
      if (now - lastSent < 200 && p.done !== p.total) return;
      lastSent = now;
      res.write(JSON.stringify({ progress: p }) + '\n');
    };
    try {
      const result = await backupNow(core, { dest: body.dest, kind: 'manual', onProgress });
      res.end(JSON.stringify({ result }) + '\n');
    } catch (err) {
      // The status line is sent: the error travels as the stream's last line, with the same evidence the router keeps.
      const e = toAppError(err);
      const errorId = newErrorId();
      recordEvidence(core.db, { errorId, surface: 'v1', tool: `${create.method} ${create.path}`, error: e, args: body, knownArgs: new Set(Object.keys(backupBody.shape)), ownerId: owner.owner_id });
      res.end(JSON.stringify({ error: { code: e.code, message: e.message, error_id: errorId } }) + '\n');
    }
  },
});

export const backupRoutes = [backupStatusUseCase.route, backupNowRoute];
