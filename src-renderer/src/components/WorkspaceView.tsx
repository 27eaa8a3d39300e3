import { useEffect, useState, type FormEvent } from 'react';
import { useWorkspace } from '../stores/workspace';
import { phaseOf } from '../stores/room-resource';
import { describeError } from '../api';
import type { Room, Workspace } from '../types';
import { Loading, ErrorNote } from './States';
import { actionOf } from './allowed';

type Msg = { ok: boolean; text: string } | undefined;

function WorkspaceForm({ room, ws, msg, setMsg }: { room: Room; ws: Workspace; msg: Msg; setMsg: (m: Msg) => void }) {
  const save = useWorkspace((s) => s.save);
  const [localPath, setLocalPath] = useState(ws.local_path ?? '');
  const [repoUrl, setRepoUrl] = useState(ws.repo_url ?? '');
  const [branch, setBranch] = useState(ws.repo_branch ?? '');
  // The new token lives only in this field until it is sent; the current one is never read back.
  const [token, setToken] = useState('');
  const [clearToken, setClearToken] = useState(false);
  const [busy, setBusy] = useState(false);
  // The server says whether this owner may change the workspace (allowed_actions on the room record).
  const admin = actionOf(room, 'edit_workspace')?.ok === true;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setMsg(undefined);
    const r = await save(room.room_id, {
      local_path: localPath.trim() || null,
      repo_url: repoUrl.trim() || null,
      repo_branch: branch.trim() || null,
      ...(token ? { git_token: token } : clearToken ? { git_token: null } : {}),
    });
    setBusy(false);
    if (r.ok) {
      setToken('');
      setClearToken(false);
      setMsg({ ok: true, text: 'Workspace saved.' });
    } else setMsg({ ok: false, text: describeError(r.error) });
  }

  return (
    <form className="stack narrow" onSubmit={submit}>
      {!admin && (
        <p className="note">
          {ws.details_hidden
            ? 'A workspace is configured. Its details (local path, repository) are shown to room admins only, as they are to agents.'
            : 'Only room admins can change the workspace; agents of admins can read it with read_workspace.'}
        </p>
      )}
      <label htmlFor="ws-path">Local path</label>
      <input id="ws-path" value={localPath} onChange={(e) => setLocalPath(e.target.value)} disabled={!admin} placeholder="/home/me/src/project" />
      <label htmlFor="ws-url">Repository URL</label>
      <input id="ws-url" value={repoUrl} onChange={(e) => setRepoUrl(e.target.value)} disabled={!admin} placeholder="https://github.com/org/repo.git" />
      <label htmlFor="ws-branch">Branch</label>
      <input id="ws-branch" value={branch} onChange={(e) => setBranch(e.target.value)} disabled={!admin} placeholder="main" />
      <label htmlFor="ws-token">Git token</label>
      <p className="muted" id="ws-token-current" data-testid="token-current">
        {ws.git_token ? (
          <>
            Current token: <code>{ws.git_token}</code> (masked; it cannot be read back, only replaced or removed)
          </>
        ) : ws.git_token_set ? (
          'Token set (masked: shown to room admins only).'
        ) : (
          'No token set.'
        )}
      </p>
      <input
        id="ws-token"
        type="password"
        autoComplete="new-password"
        value={token}
        onChange={(e) => setToken(e.target.value)}
        disabled={!admin}
        placeholder={ws.git_token ? 'Type a new token to replace it' : 'Paste a token'}
        aria-describedby="ws-token-current"
      />
      {ws.git_token && admin && (
        <label className="check">
          <input type="checkbox" checked={clearToken} onChange={(e) => setClearToken(e.target.checked)} disabled={!!token} /> Remove the token
        </label>
      )}
      {msg && (
        <p role={msg.ok ? 'status' : 'alert'} className={msg.ok ? 'ok-text' : 'error-text'}>
          {msg.text}
        </p>
      )}
      {admin && (
        <button type="submit" className="primary" disabled={busy}>
          Save workspace
        </button>
      )}
    </form>
  );
}

export function WorkspaceView({ room }: { room: Room }) {
  const st = useWorkspace((s) => s.rooms[room.room_id]);
  const load = useWorkspace((s) => s.load);
  const [msg, setMsg] = useState<Msg>();
  useEffect(() => {
    void load(room.room_id);
  }, [room.room_id, load]);
  if (!st?.data) return phaseOf(st) === 'error' ? <ErrorNote error={st?.error} what="the workspace" retry={() => void load(room.room_id)} /> : <Loading what="the workspace" />;
  // Re-key on the saved values so the form shows what the server holds after a save.
  const k = `${st.data.local_path}|${st.data.repo_url}|${st.data.repo_branch}|${st.data.git_token}`;
  return (
    <section aria-labelledby="ws-h">
      <h2 id="ws-h">Workspace</h2>
      <p className="muted">Where the room’s work lives. Admin agents read it with read_workspace; the token is a git credential and is stored encrypted.</p>
      <WorkspaceForm key={k} room={room} ws={st.data} msg={msg} setMsg={setMsg} />
    </section>
  );
}
