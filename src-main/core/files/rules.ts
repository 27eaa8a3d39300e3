import { DELETED_FILE_ACTIONS, FILE_ACTIONS, type DeletedFileAction, type FileAction } from '../../../shared/api-types.js';
import type { RoomRole } from '../rooms/store.js';
import type { VersionRow } from './store.js';
import { actsOf, no, yes, type Acts, type ActTable, type Permission } from '../util/acts.js';

/**
 * What may be done with a room's file (docs/files.md "What you may do with a file"): download its
 * current version, delete it, restore it once deleted. The files service and the trash ask
 * these functions before they act; the /v1 file lists carry their answers as
 * `allowed_actions` and `denied_actions`.
 */

export { DELETED_FILE_ACTIONS, FILE_ACTIONS, type DeletedFileAction, type FileAction };

/** Whoever acts: a human, or an agent acting for its owner (the owner's room role counts). */
export interface FileStanding {
  ownerId: string;
  role: RoomRole | undefined;
}

export type { Permission };

/** Delete (and restore): a room admin's side, or the author's owner, who wrote every version. */
export function deletePermission(who: FileStanding, versions: ReadonlyArray<Pick<VersionRow, 'uploader_owner_id'>>): Permission {
  if (who.role === 'admin') return yes;
  if (versions.length > 0 && versions.every((v) => v.uploader_owner_id === who.ownerId)) return yes;
  return no('author_owner_or_admin_only', 'Only the file’s author’s owner or a room admin may delete or restore it.');
}

/** Restore: whoever deleted it, or whoever may delete it. */
export function restorePermission(who: FileStanding, deleted: { deletedByOwner: string; versions: ReadonlyArray<Pick<VersionRow, 'uploader_owner_id'>> }): Permission {
  return deleted.deletedByOwner === who.ownerId ? yes : deletePermission(who, deleted.versions);
}

export type FileActions = Acts<FileAction>;

interface LiveFacts {
  current: Pick<VersionRow, 'status'> | undefined;
  versions: ReadonlyArray<Pick<VersionRow, 'uploader_owner_id'>>;
}

const FILE_TABLE: ActTable<FileAction, LiveFacts, FileStanding> = {
  // Quarantined bytes are not served.
  download: { may: (f) => (f.current?.status === 'ready' ? yes : no('quarantined', 'A quarantined file cannot be downloaded.')) },
  delete: { may: (f, who) => deletePermission(who, f.versions) },
};

/** A live file: download when its current version is ready, delete by the rule above. */
export function fileActions(current: Pick<VersionRow, 'status'> | undefined, versions: ReadonlyArray<Pick<VersionRow, 'uploader_owner_id'>>, who: FileStanding): FileActions {
  return actsOf(FILE_ACTIONS, FILE_TABLE, { current, versions }, who);
}

export type DeletedFileActions = Acts<DeletedFileAction>;

interface DeletedFacts {
  deletedByOwner: string;
  versions: ReadonlyArray<Pick<VersionRow, 'uploader_owner_id'>>;
  pathTaken: boolean;
}

const DELETED_FILE_TABLE: ActTable<DeletedFileAction, DeletedFacts, FileStanding> = {
  // Restore, unless the caller may not or its path was taken again meanwhile.
  restore: {
    may: (d, who) => {
      const p = restorePermission(who, d);
      if (!p.ok) return p;
      return d.pathTaken ? no('path_taken', 'A file with this path exists again: rename or delete it, then restore.') : yes;
    },
  },
};

/** A deleted file: restore by the rule above. */
export function deletedFileActions(deleted: DeletedFacts, who: FileStanding): DeletedFileActions {
  return actsOf(DELETED_FILE_ACTIONS, DELETED_FILE_TABLE, deleted, who);
}
