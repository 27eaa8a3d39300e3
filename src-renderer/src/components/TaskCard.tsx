import { memo, useState } from 'react';
import type { Members, Room, Task } from '../types';
import { useBoard } from '../stores/board';
import { describeError } from '../api';
import { Confirm, Dialog } from './Dialog';
import { Disabled } from './States';
import { canArchive, canCancel, canReassign, canRelease, type Allowed } from './boardRules';
import { dePlate } from './MessageBody';
import { ReservedPaths } from './ReservationsView';

function Action({ label, allowed, onClick }: { label: string; allowed: Allowed | null; onClick: () => void }) {
  if (allowed === null) return null;
  if (!allowed.ok) return <Disabled label={label} reason={allowed.reason} />;
  return (
    <button type="button" onClick={onClick}>
      {label}
    </button>
  );
}

export const TaskCard = memo(function TaskCard({ task, room, meId, members, titles, plates }: { task: Task; room: Room; meId: string; members?: Members; titles: Map<string, string>; plates: Map<string, string> }) {
  const act = useBoard((s) => s.act);
  const [dialog, setDialog] = useState<null | 'reassign' | 'cancel' | 'release' | 'archive'>(null);
  const [err, setErr] = useState<string>();
  const [assignee, setAssignee] = useState(task.assignee);
  const run = async (action: 'assign' | 'cancel' | 'release' | 'archive', body?: unknown) => {
    const r = await act(room.room_id, task.task_id, action, body);
    setErr(r.ok ? undefined : describeError(r.error));
    return r.ok;
  };
  const lease = task.lease;
  const holder = lease?.instance_id ? (members?.instances.find((i) => i.instance_id === lease.instance_id)?.handle ?? `${plates.get(task.assignee) ?? '@agent'} (instance gone)`) : null;
  const titleOf = (id: string) => titles.get(id) ?? id;
  return (
    <article className={`card status-${task.status}`} aria-label={`Task ${task.title}`} data-task={task.task_id}>
      <header>
        <h4>{dePlate(task.title, plates)}</h4>
        <span className={`status-badge s-${task.status}`}>{task.status}</span>
      </header>
      <dl className="facts">
        <div>
          <dt>Consent</dt>
          <dd>{task.consent_state === 'accepted' ? 'accepted (Trusted cross-owner)' : (task.consent_state ?? 'auto')}</dd>
        </div>
        {task.blocked_by && task.blocked_by.length > 0 && (
          <div className="blocked">
            <dt>Blocked by</dt>
            <dd>{task.blocked_by.map(titleOf).join(', ')}</dd>
          </div>
        )}
        {holder && (
          <div>
            <dt>Lease</dt>
            <dd>
              {holder}
              {lease?.stale && (
                <span className="badge warn" title="No lease renewal for over 120 s; the holder may have died">
                  stale
                </span>
              )}
            </dd>
          </div>
        )}
        <ReservedPaths roomId={room.room_id} taskId={task.task_id} />
        <div>
          <dt>Done when</dt>
          <dd>{dePlate(task.definition_of_done, plates)}</dd>
        </div>
        {task.reason && (
          <div>
            <dt>Reason</dt>
            <dd>{task.reason}</dd>
          </div>
        )}
        {task.handoff_notes && (
          <div>
            <dt>Handoff notes</dt>
            <dd className="notes">{dePlate(task.handoff_notes, plates)}</dd>
          </div>
        )}
        {task.status === 'done' && (task.result_ref || task.summary) && (
          <div>
            <dt>Result</dt>
            <dd>
              {task.summary && dePlate(task.summary, plates)} {task.result_ref && <code>{task.result_ref}</code>}
            </dd>
          </div>
        )}
      </dl>
      <div className="card-actions">
        <Action label="Reassign" allowed={canReassign(room, meId, members, task)} onClick={() => setDialog('reassign')} />
        <Action label="Cancel" allowed={canCancel(room, meId, members, task)} onClick={() => setDialog('cancel')} />
        <Action label="Force-release" allowed={canRelease(room, task)} onClick={() => setDialog('release')} />
        <Action label="Archive" allowed={canArchive(room, meId, members, task)} onClick={() => void run('archive')} />
      </div>
      {err && (
        <p role="alert" className="error-text">
          {err}
        </p>
      )}
      {dialog === 'reassign' && (
        <Dialog title={`Reassign “${task.title}”`} onClose={() => setDialog(null)}>
          <form
            className="stack"
            onSubmit={async (e) => {
              e.preventDefault();
              if (await run('assign', { assignee })) setDialog(null);
            }}
          >
            <label htmlFor={`re-${task.task_id}`}>New assignee</label>
            <select id={`re-${task.task_id}`} value={assignee} onChange={(e) => setAssignee(e.target.value)}>
              {(members?.agents ?? [])
                .filter((a) => !a.revoked)
                .map((a) => (
                  <option key={a.plate} value={a.plate}>
                    {a.handle}
                  </option>
                ))}
            </select>
            <p className="muted">The status stays {task.status}; the new assignee is told and, if it may be woken, woken.</p>
            {err && (
              <p role="alert" className="error-text">
                {err}
              </p>
            )}
            <div className="row end">
              <button type="button" onClick={() => setDialog(null)}>
                Close
              </button>
              <button type="submit" disabled={assignee === task.assignee}>
                Reassign
              </button>
            </div>
          </form>
        </Dialog>
      )}
      {dialog === 'cancel' && (
        <Confirm title="Cancel task?" text={`“${task.title}” will be withdrawn (cancelled). Tasks that depend on it stay blocked.`} action="Cancel task" onConfirm={() => run('cancel').then(() => {})} onClose={() => setDialog(null)} />
      )}
      {dialog === 'release' && (
        <Confirm
          title="Force-release the lease?"
          text={`The task goes back to todo and ${holder ?? 'the holder'} loses its lease. Do this only when the holder is gone.`}
          action="Force-release"
          onConfirm={() => run('release').then(() => {})}
          onClose={() => setDialog(null)}
        />
      )}
    </article>
  );
});
