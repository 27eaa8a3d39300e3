import { useEffect, useRef, useState, type DragEvent } from 'react';
import { useFiles } from '../stores/files';
import { phaseOf } from '../stores/room-resource';
import { DeletedFiles } from './DeletedFiles';
import { describeError } from '../api';
import { client } from '../client';
import { actionOf } from './allowed';
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

const pathOf = (f: RoomFile) => f.path ?? f.filename ?? '';

/**
 * The file a link names (`#/rooms/:id/files/<path>`, a palette hit): the loaded row, or, when it is
 * not on the loaded page, the file itself asked by its path (`?prefix=`), shown first;
 * `missing` when the room has no such (readable) file.
 */
function useLinkedFile(roomId: string, path: string | undefined, files: RoomFile[] | undefined): { extra?: RoomFile; missing: boolean } {
  const inPage = !!path && !!files?.some((f) => pathOf(f) === path);
  const [found, setFound] = useState<{ path: string; file: RoomFile | false } | null>(null);
  useEffect(() => {
    if (!path || !files || inPage) return;
    let live = true;
    void client.files.list({ params: { id: roomId }, query: { prefix: path, limit: 20 } }).then((r) => {
      if (!live) return;
      const file = r.ok ? r.data.files.find((f) => pathOf(f) === path) : undefined;
      setFound({ path, file: file ?? false });
    });
    return () => {
      live = false;
    };
  }, [roomId, path, inPage, files]);
  if (!path || inPage || found?.path !== path) return { missing: false };
  return found.file ? { extra: found.file, missing: false } : { missing: true };
}

export function FilesView({ room, focusPath }: { room: Room; focusPath?: string }) {
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
  const linked = useLinkedFile(roomId, focusPath, files);
  const rows = linked.extra ? [linked.extra, ...(files ?? [])] : files;
  const focusedRow = useRef<HTMLTableRowElement>(null);
  const shownFocus = rows?.some((f) => pathOf(f) === focusPath);
  // A linked file is scrolled into view and takes the focus once it is on screen.
  useEffect(() => {
    if (!shownFocus) return;
    focusedRow.current?.scrollIntoView({ block: 'center' });
    focusedRow.current?.focus({ preventScroll: true });
  }, [shownFocus, focusPath]);

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
        <p className="muted">Files of up to 2 GiB upload straight to this server. A file cannot be downloaded until all its bytes have arrived and match what was sent.</p>
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
      {linked.missing && <ErrorNote error={`This room has no file “${focusPath}” (it was deleted or never finished uploading).`} />}
      {linked.extra && <p className="muted">The linked file is not on the first page of the list: it is shown first.</p>}
      {!rows ? (
        phaseOf(state) === 'error' ? <ErrorNote error={state?.error} what="files" retry={() => void load(roomId)} /> : <Loading what="files" />
      ) : !rows.length ? (
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
            {rows.map((f, i) => {
              const focused = !!focusPath && pathOf(f) === focusPath && (i === 0 || !linked.extra);
              return (
              <tr
                key={`${f.file_id}:${i === 0 && linked.extra ? 'linked' : ''}`}
                ref={focused ? focusedRow : undefined}
                className={focused ? 'highlight' : undefined}
                aria-current={focused ? 'true' : undefined}
                tabIndex={focused ? -1 : undefined}
                data-path={pathOf(f)}
              >
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
                            {isQuarantined(v) ? ' (not complete yet)' : ''}
                            {v.created_at ? `, ${new Date(v.created_at).toLocaleString()}` : ''}
                          </li>
                        ))}
                      </ul>
                    </details>
                  )}
                </td>
                <td>{size(f.size_bytes)}</td>
                <td>{isQuarantined(f) ? <span className="badge warn" title="Its bytes have not all arrived yet, or do not match the size and checksum the upload declared">not complete yet</span> : <span className="badge ok">ready</span>}</td>
                <td className="row">
                  {(() => {
                    // The server says what this owner may do with the file (its allowed_actions); a refusal shows its reason.
                    const dl = actionOf(f, 'download');
                    const del = actionOf(f, 'delete');
                    return (
                      <>
                        {dl && (
                          <button type="button" onClick={() => void doDownload(f)} disabled={!dl.ok} title={dl.ok ? undefined : dl.reason} aria-label={`Download ${f.path ?? f.filename}`}>
                            Download
                          </button>
                        )}
                        {del && (
                          <button type="button" className="danger" onClick={() => setDeleting(f)} disabled={!del.ok} title={del.ok ? undefined : del.reason} aria-label={`Delete ${f.path ?? f.filename}`}>
                            Delete
                          </button>
                        )}
                      </>
                    );
                  })()}
                </td>
              </tr>
              );
            })}
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
