import { useEffect, useState } from 'react';
import { describeError } from '../api';
import { useDeletedFiles } from '../stores/files';
import type { Room } from '../types';
import { actionOf } from './allowed';

/** Files deleted in this room that can still be restored (docs/security.md, item 7); files.changed keeps the list fresh. */
export function DeletedFiles({ room }: { room: Room }) {
  const roomId = room.room_id;
  const files = useDeletedFiles((s) => s.rooms[roomId]?.data);
  const { load, restore } = useDeletedFiles.getState();
  const [err, setErr] = useState<string>();
  useEffect(() => {
    void load(roomId);
  }, [roomId, load]);
  if (!files?.length) return null;
  return (
    <section aria-labelledby="deleted-h" className="stack">
      <h2 id="deleted-h">Recently deleted</h2>
      <ul className="list">
        {files.map((f) => {
          // Restore as the server allows it for this owner (allowed_actions), or disabled with its reason.
          const can = actionOf(f, 'restore');
          return (
            <li key={f.file_id}>
              <code>{f.path}</code> <span className="muted">deleted {new Date(f.deleted_at).toLocaleString()}, restorable until {new Date(f.restorable_until).toLocaleDateString()}</span>{' '}
              {can && (
                <button
                  type="button"
                  aria-label={`Restore ${f.path}`}
                  disabled={!can.ok}
                  title={can.ok ? undefined : can.reason}
                  onClick={async () => {
                    const r = await restore(roomId, f.file_id);
                    setErr(r.ok ? undefined : describeError(r.error));
                  }}
                >
                  Restore
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {err && (
        <p role="alert" className="error-text">
          {err}
        </p>
      )}
    </section>
  );
}
