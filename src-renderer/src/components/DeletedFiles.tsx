import { useEffect, useState } from 'react';
import { describeError, enc, get, post } from '../api';
import { useFiles } from '../stores/files';
import type { DeletedFile, Room } from '../types';

/** Files deleted in this room that can still be restored (docs/security.md, item 7). */
export function DeletedFiles({ room, revision }: { room: Room; revision: unknown }) {
  const [files, setFiles] = useState<DeletedFile[]>([]);
  const [err, setErr] = useState<string>();
  const roomId = room.room_id;
  const load = async () => {
    const r = await get<{ files: DeletedFile[] }>(`/v1/rooms/${enc(roomId)}/deleted-files`);
    if (r.ok) setFiles(r.data.files);
  };
  useEffect(() => {
    void load();
  }, [roomId, revision]);
  if (files.length === 0) return null;
  return (
    <section aria-labelledby="deleted-h" className="stack">
      <h2 id="deleted-h">Recently deleted</h2>
      <ul className="list">
        {files.map((f) => (
          <li key={f.file_id}>
            <code>{f.path}</code> <span className="muted">deleted {new Date(f.deleted_at).toLocaleString()}, restorable until {new Date(f.restorable_until).toLocaleDateString()}</span>{' '}
            <button
              type="button"
              aria-label={`Restore ${f.path}`}
              onClick={async () => {
                const r = await post(`/v1/rooms/${enc(roomId)}/deleted-files/${enc(f.file_id)}/restore`, {});
                setErr(r.ok ? undefined : describeError(r.error));
                await load();
                if (r.ok) void useFiles.getState().load(roomId);
              }}
            >
              Restore
            </button>
          </li>
        ))}
      </ul>
      {err && (
        <p role="alert" className="error-text">
          {err}
        </p>
      )}
    </section>
  );
}
