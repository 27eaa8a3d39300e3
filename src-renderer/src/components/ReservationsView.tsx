import { useEffect, useState, type FormEvent } from 'react';
import { useReservations } from '../stores/reservations';
import { useBoard } from '../stores/board';
import { phaseOf } from '../stores/room-resource';
import { describeError } from '../api';
import type { Reservation, Room } from '../types';
import { Dialog } from './Dialog';
import { Empty, ErrorNote, Loading } from './States';

/** Loads a room's reservations once; live events (reservations.changed) keep them fresh. */
function useRoomReservations(roomId: string) {
  const entry = useReservations((s) => s.rooms[roomId]);
  const load = useReservations((s) => s.load);
  useEffect(() => {
    if (!useReservations.getState().rooms[roomId]) void load(roomId);
  }, [roomId, load]);
  return entry;
}

const when = (iso: string) => new Date(iso).toLocaleString();

function TaskName({ roomId, taskId }: { roomId: string; taskId: string | null }) {
  const title = useBoard((s) => {
    const b = s.rooms[roomId]?.data;
    if (!b || !taskId) return undefined;
    return [...b.lanes.flatMap((l) => l.tasks), ...b.done].find((t) => t.task_id === taskId)?.title;
  });
  if (!taskId) return <span className="muted">none</span>;
  return <span title={taskId}>{title ?? taskId}</span>;
}

function ForceRelease({ room, r, onClose }: { room: Room; r: Reservation; onClose: () => void }) {
  const forceRelease = useReservations((s) => s.forceRelease);
  const [reason, setReason] = useState('');
  const [err, setErr] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    const out = await forceRelease(room.room_id, r.reservation_id, reason.trim());
    setBusy(false);
    if (out.ok) onClose();
    else setErr(describeError(out.error));
  }
  return (
    <Dialog title="Force-release the reservation" onClose={onClose}>
      <form className="stack" onSubmit={submit}>
        <p>
          <code>{r.pattern}</code> held by {r.holder} is released now; agents waiting for it get it. The reason is recorded.
        </p>
        <label htmlFor={`fr-${r.reservation_id}`}>Reason</label>
        <input id={`fr-${r.reservation_id}`} value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} required autoFocus />
        {err && (
          <p role="alert" className="error-text">
            {err}
          </p>
        )}
        <div className="row end">
          <button type="button" onClick={onClose}>
            Keep it
          </button>
          <button type="submit" className="danger" disabled={busy || !reason.trim()}>
            Force-release
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The room's Reservations tab: who holds which paths, until when, for which task; admins force-release. */
export function ReservationsView({ room }: { room: Room }) {
  const entry = useRoomReservations(room.room_id);
  const [releasing, setReleasing] = useState<Reservation>();
  if (!entry?.data) {
    return phaseOf(entry) === 'error' ? <ErrorNote error={entry?.error} what="reservations" retry={() => void useReservations.getState().load(room.room_id)} /> : <Loading what="reservations" />;
  }
  const { reservations, waiting, released, can_force_release } = entry.data;
  return (
    <section className="stack" aria-labelledby="rsv-title">
      <h2 id="rsv-title">Reservations</h2>
      <p className="muted">
        Agents reserve repository paths before editing them (reserve_paths). Exclusive reservations block other agents' reservations and, with{' '}
        <code>agent-rooms guard install</code>, their commits.
      </p>
      {reservations.length === 0 ? (
        <Empty>No paths are reserved in this room.</Empty>
      ) : (
        <table className="table" aria-label="Active reservations">
          <thead>
            <tr>
              <th scope="col">Paths</th>
              <th scope="col">Held by</th>
              <th scope="col">Mode</th>
              <th scope="col">Task</th>
              <th scope="col">Until</th>
              <th scope="col">Reason</th>
              {can_force_release && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {reservations.map((r) => (
              <tr key={r.reservation_id} data-reservation={r.reservation_id}>
                <td>
                  <code>{r.pattern}</code>
                </td>
                <td>{r.holder}</td>
                <td>{r.exclusive ? 'exclusive' : 'shared'}</td>
                <td>
                  <TaskName roomId={room.room_id} taskId={r.task_id} />
                </td>
                <td>
                  <time dateTime={r.expires_at}>{when(r.expires_at)}</time>
                </td>
                <td>{r.reason ?? <span className="muted">none</span>}</td>
                {can_force_release && (
                  <td>
                    <button type="button" onClick={() => setReleasing(r)} aria-label={`Force-release ${r.pattern}`}>
                      Force-release
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {waiting.length > 0 && (
        <>
          <h3>Waiting</h3>
          <ul aria-label="Waiting for paths">
            {waiting.map((r) => (
              <li key={r.reservation_id}>
                {r.holder} waits for <code>{r.pattern}</code> (gives up {when(r.expires_at)})
              </li>
            ))}
          </ul>
        </>
      )}
      {released.length > 0 && (
        <>
          <h3>Recently released</h3>
          <ul aria-label="Recently released" className="muted">
            {released.slice(0, 10).map((r) => (
              <li key={`${r.reservation_id}-${r.at}`}>
                <code>{r.pattern}</code> of {r.holder}: {r.cause.replace('_', ' ')}
                {r.reason ? ` (${r.reason})` : ''}, {when(r.at)}
              </li>
            ))}
          </ul>
        </>
      )}
      {releasing && <ForceRelease room={room} r={releasing} onClose={() => setReleasing(undefined)} />}
    </section>
  );
}

/** One line of a board card: the paths the task's agent holds for it. */
export function ReservedPaths({ roomId, taskId }: { roomId: string; taskId: string }) {
  const entry = useRoomReservations(roomId);
  const mine = entry?.data?.reservations.filter((r) => r.task_id === taskId) ?? [];
  if (mine.length === 0) return null;
  // One line of the compact board card: which paths the task's holder has reserved.
  return (
    <span className="reserved" title={mine.map((r) => `${r.pattern}: ${r.exclusive ? 'exclusive' : 'shared'} until ${when(r.expires_at)}`).join('\n')}>
      reserved:{' '}
      {mine.map((r) => (
        <code key={r.reservation_id}>{r.pattern} </code>
      ))}
    </span>
  );
}
