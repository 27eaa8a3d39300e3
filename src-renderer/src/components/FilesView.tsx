import { useEffect, useRef, useState, type DragEvent } from 'react';
import { useFiles } from '../stores/files';
import { phaseOf } from '../stores/room-resource';
import { DeletedFiles } from './DeletedFiles';
import { describeError } from '../api';
import type { Room, RoomFile } from '../types';
import { Loading, ErrorNote, Empty } from './States';
import { Confirm } from './Dialog';

export function size(n?: number): string {
  if (n === undefined) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

function isQuarantined(f: { status?: string; quarantined?: boolean }) {
  return f.quarantined === true || f.status === 'quarantined';
}

export function FilesView({ room }: { room: Room }) {
  const roomId = room.room_id;
  const state = useFiles((s) => s.rooms[roomId]);
  const files = state?.data;
  const allUploads = useFiles((s) => s.uploads);
  const uploads = allUploads.filter((u) => u.roomId === roomId);
  const { load, upload, download, remove, dismiss } = useFiles.getState();
  const [over, setOver] = useState(false);
  const [deleting, setDeleting] = useState<RoomFile | null>(null);
  const [err, setErr] = useState<string>();
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    void load(roomId);
  }, [roomId, load]);

  const start = (files: FileList | null) => {
    for (const f of Array.from(files ?? [])) void upload(roomId, f);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    start(e.dataTransfer.files);
  };
  async function doDownload(f: RoomFile) {
    const r = await download(roomId, f.file_id);
    if (!r.ok) return setErr(describeError(r.error));
    const a = document.createElement('a');
    a.href = r.data.download_url;
    a.download = f.filename ?? f.path ?? 'download';
    document.body.appendChild(a);
    a.click();
    a.remove();
  }

  return (
    <div className="files">
      <div
        className={`dropzone ${over ? 'over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        data-testid="dropzone"
      >
        <p>Drop files here to share them with the room, or</p>
        <label className="button" htmlFor="file-pick">
          Choose files…
        </label>
        <input id="file-pick" ref={input} type="file" multiple className="sr-only" onChange={(e) => {
          start(e.target.files);
          e.target.value = '';
        }} />
        <p className="muted">Files go through the presigned flow (up to 2 GiB); a file stays quarantined until its bytes arrive and match.</p>
      </div>
      {uploads.length > 0 && (
        <ul className="uploads" aria-label="Uploads">
          {uploads.map((u) => (
            <li key={u.id} data-phase={u.phase}>
              <span className="name">{u.filename}</span>
              <progress max={u.total || 1} value={u.loaded} aria-label={`Upload of ${u.filename}`} />
              <span className="pct" aria-live="polite">
                {u.phase === 'hashing' && 'checking…'}
                {u.phase === 'uploading' && `${Math.floor((u.loaded / (u.total || 1)) * 100)}%`}
                {u.phase === 'completing' && 'finishing…'}
                {u.phase === 'done' && 'uploaded'}
                {u.phase === 'failed' && `failed: ${u.error}`}
              </span>
              {(u.phase === 'done' || u.phase === 'failed') && (
                <button type="button" className="ghost" onClick={() => dismiss(u.id)} aria-label={`Dismiss ${u.filename}`}>
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {err && <ErrorNote error={err} />}
      {!files ? (
        phaseOf(state) === 'error' ? <ErrorNote error={state?.error} what="files" retry={() => void load(roomId)} /> : <Loading what="files" />
      ) : !files.length ? (
        <Empty>No files yet.</Empty>
      ) : (
        <table className="table">
          <caption className="sr-only">Files of the room</caption>
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Version</th>
              <th scope="col">Size</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {files.map((f) => (
              <tr key={f.file_id}>
                <td>
                  <strong>{f.path ?? f.filename}</strong>
                  <div className="muted">{f.content_type}</div>
                </td>
                <td>
                  v{f.version}
                  {f.versions && f.versions.length > 1 && (
                    <details>
                      <summary>{f.versions.length} versions</summary>
                      <ul>
                        {f.versions.map((v) => (
                          <li key={v.version}>
                            v{v.version}, {size(v.size_bytes)}
                            {isQuarantined(v) ? ' (quarantined)' : ''}
                            {v.created_at ? `, ${new Date(v.created_at).toLocaleString()}` : ''}
                          </li>
                        ))}
                      </ul>
                    </details>
                  )}
                </td>
                <td>{size(f.size_bytes)}</td>
                <td>{isQuarantined(f) ? <span className="badge warn" title="Bytes not yet received or not matching the declared size and sha256">quarantined</span> : <span className="badge ok">ready</span>}</td>
                <td className="row">
                  <button type="button" onClick={() => void doDownload(f)} disabled={isQuarantined(f)} title={isQuarantined(f) ? 'A quarantined file cannot be downloaded' : undefined} aria-label={`Download ${f.path ?? f.filename}`}>
                    Download
                  </button>
                  <button type="button" className="danger" onClick={() => setDeleting(f)} aria-label={`Delete ${f.path ?? f.filename}`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <DeletedFiles room={room} />
      {deleting && (
        <Confirm
          title="Delete file?"
          text={`“${deleting.path ?? deleting.filename}” and all its versions will be removed for everyone in the room. It can be restored for 7 days.`}
          action="Delete"
          onConfirm={async () => {
            const r = await remove(roomId, deleting.file_id);
            if (!r.ok) setErr(describeError(r.error));
          }}
          onClose={() => setDeleting(null)}
        />
      )}
    </div>
  );
}
