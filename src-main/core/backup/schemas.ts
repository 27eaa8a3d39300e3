import { z } from 'zod';

/** POST /v1/backups: where to write the backup (default `<home>/backups`). */
export const backupBody = z.object({ dest: z.string().min(1).max(4096).optional() }).strict();
