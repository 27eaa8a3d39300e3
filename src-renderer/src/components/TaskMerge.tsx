import { useState } from 'react';
import { describeError } from '../api';
import { mergeRefusal, useChanges, type MergeRefusal, type MergeStrategy } from '../stores/changes';
import { useSession } from '../stores/session';
import { useRooms } from '../stores/rooms';
import type { Members, PushResult, Task } from '../types';
import { actionOf } from './allowed';
import { Dialog } from './Dialog';
import { formatTime } from './time';

/** A commit as the window shows it, as the Runs region does (the whole id in its title). */
export const shortCommit = (commit: string) => commit.slice(0, 8);

/** Who merged: "you", the owner's name from the room's humans or the directory, else "another owner". */
export function ownerName(ownerId: string, meId: string | undefined, members: Members | undefined, directory: Array<{ owner_id: string; name: string }>): string {
  if (ownerId === meId) return 'you';
  return members?.humans.find((h) => h.owner_id === ownerId)?.name ?? directory.find((o) => o.owner_id === ownerId)?.name ?? 'another owner';
}

/** "Merged into <base> as <short commit> by <owner> <time>" (`merged.into` names the base; `base` is what the window saw before, for an older record). */
export function MergedNote({ task, base, members }: { task: Task; base?: string; members?: Members }) {
  const meId = useSession((s) => s.me?.owner_id);
  const directory = useRooms((s) => s.owners);
  const m = task.merged;
  if (!m) return null;
  return (
    <p className="merged-note" data-testid="merged-note">
      <span className="status-badge s-merged">merged</span> Merged into {m.into || base ? <code>{m.into || base}</code> : 'its base branch'} as{' '}
      <code title={m.commit}>{shortCommit(m.commit)}</code> by {ownerName(m.by, meId, members, directory)}{' '}
      <time dateTime={m.at}>{formatTime(m.at)}</time>
    </p>
  );
}

/** A refused merge: the server's sentence, the folder, the paths in the way, and that nothing was touched. */
function RefusalNote({ refusal }: { refusal: MergeRefusal }) {
  const conflict = refusal.error.status === 409 && refusal.error.code === 'CONFLICT';
  if (!conflict) {
    return (
      <p role="alert" className="error-text">
        Not merged: {describeError(refusal.error)}
      </p>
    );
  }
  const shown = refusal.paths.slice(0, 200);
  return (
    <div role="alert" className="refusal" data-testid="merge-refused">
      <p className="error-text">
        <strong>Not merged:</strong> {refusal.message}
      </p>
      {refusal.folder && (
        <p>
          Folder: <code className="wt-path">{refusal.folder}</code>
        </p>
      )}
      {shown.length > 0 && (
        <>
          <p id="merge-paths-h">{refusal.paths.length === 1 ? 'The path in the way:' : `The ${refusal.paths.length.toLocaleString()} paths in the way:`}</p>
          <ul className="refusal-paths" aria-labelledby="merge-paths-h">
            {shown.map((p) => (
              <li key={p}>
                <code>{p}</code>
              </li>
            ))}
            {refusal.paths.length > shown.length && <li className="muted">and {(refusal.paths.length - shown.length).toLocaleString()} more</li>}
          </ul>
        </>
      )}
      <p>Nothing was changed: the folder was left exactly as it was.</p>
    </div>
  );
}

function MergeDialog({ roomId, task, onMerged, onClose }: { roomId: string; task: Task; onMerged: (t: Task) => void; onClose: () => void }) {
  const [strategy, setStrategy] = useState<MergeStrategy>('merge');
  const [deleteBranch, setDeleteBranch] = useState(false);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<MergeRefusal>();
  const wt = task.worktree;
  const base = wt?.base_branch;
  const id = `merge-${task.task_id}`;
  return (
    <Dialog title={`Merge “${task.title}”`} onClose={onClose}>
      <form
        className="stack"
        aria-label="Merge"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          const r = await useChanges.getState().merge(roomId, task.task_id, { strategy, delete_branch: deleteBranch });
          setBusy(false);
          if (r.ok) {
            onMerged(r.data);
            onClose();
          } else setRefusal(mergeRefusal(r.error));
        }}
      >
        <p>
          {wt ? (
            <>
              <code>{wt.branch}</code> goes into <code>{wt.base_branch}</code> in the room’s folder.
            </>
          ) : (
            'The task’s branch goes into its base branch in the room’s folder.'
          )}{' '}
          The folder must be on {base ? <code>{base}</code> : 'the base branch'} with no uncommitted changes to tracked files; otherwise nothing is changed.
        </p>
        <fieldset className="merge-how">
          <legend>How</legend>
          <label>
            <input type="radio" name={`${id}-how`} value="merge" checked={strategy === 'merge'} onChange={() => setStrategy('merge')} /> Merge commit
            <span className="muted"> — keeps the branch’s commits, joined by a merge commit</span>
          </label>
          <label>
            <input type="radio" name={`${id}-how`} value="squash" checked={strategy === 'squash'} onChange={() => setStrategy('squash')} /> Squash
            <span className="muted"> — the branch’s work as one new commit</span>
          </label>
        </fieldset>
        <label>
          <input type="checkbox" checked={deleteBranch} onChange={(e) => setDeleteBranch(e.target.checked)} /> Delete the branch after merging
        </label>
        {refusal && <RefusalNote refusal={refusal} />}
        <div className="row end">
          <button type="button" onClick={onClose}>
            Close
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Merging…' : base ? `Merge into ${base}` : 'Merge'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/**
 * Merge and Push branch, as the record's `allowed_actions` says (`merge`; a push needs the same
 * rights, and a branch of its own): a refusal in `denied_actions` is said instead of a button.
 */
export function MergeControls({ roomId, task, onMerged }: { roomId: string; task: Task; onMerged: (t: Task) => void }) {
  const [open, setOpen] = useState(false);
  const [pushing, setPushing] = useState(false);
  const [pushed, setPushed] = useState<PushResult>();
  const [pushErr, setPushErr] = useState<string>();
  const rule = actionOf(task, 'merge');
  if (!rule) return null;
  if (!rule.ok) {
    return (
      <p className="muted explain" data-testid="merge-denied">
        {rule.reason}
      </p>
    );
  }
  const branch = task.worktree?.branch;
  return (
    <div className="merge-controls">
      <div className="row wrap">
        <button type="button" className="primary" onClick={() => setOpen(true)}>
          Merge
        </button>
        {branch && (
          <button
            type="button"
            disabled={pushing}
            onClick={async () => {
              setPushing(true);
              setPushErr(undefined);
              const r = await useChanges.getState().push(roomId, task.task_id);
              setPushing(false);
              if (r.ok) setPushed(r.data);
              else setPushErr(describeError(r.error));
            }}
          >
            {pushing ? 'Pushing…' : 'Push branch'}
          </button>
        )}
      </div>
      {pushed && (
        <p role="status" className="push-result">
          Pushed <code>{pushed.branch}</code> to <code>{pushed.remote}</code>.{' '}
          {pushed.compare_url && /^https?:\/\//.test(pushed.compare_url) && (
            <a href={pushed.compare_url} target="_blank" rel="noopener noreferrer">
              Open a pull request
            </a>
          )}
        </p>
      )}
      {pushErr && (
        <p role="alert" className="error-text">
          Not pushed: {pushErr}
        </p>
      )}
      {open && <MergeDialog roomId={roomId} task={task} onMerged={onMerged} onClose={() => setOpen(false)} />}
    </div>
  );
}
