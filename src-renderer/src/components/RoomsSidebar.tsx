import { useState, type FormEvent, type ReactNode } from 'react';
import { useRooms } from '../stores/rooms';
import { useNeeds } from '../stores/needs';
import { useAttention } from '../stores/attention';
import { href, navigate } from '../router';
import { Loading, ErrorNote, Empty } from './States';
import { describeError } from '../api';

function Counts({ unread, mentions }: { unread: number; mentions: number }) {
  if (!unread && !mentions) return null;
  const words = [unread ? `${unread} unread` : '', mentions ? `${mentions} ${mentions === 1 ? 'mention' : 'mentions'} of you` : ''].filter(Boolean).join(', ');
  return (
    <span className="counts" data-testid="room-counts">
      <span className="sr-only">({words})</span>
      {mentions > 0 && (
        <span className="mention-count" aria-hidden="true">
          @{mentions}
        </span>
      )}
      {unread > 0 && (
        <span className="unread" aria-hidden="true">
          {unread}
        </span>
      )}
    </span>
  );
}

export function RoomsSidebar({ currentRoom, hidden, children }: { currentRoom?: string; hidden?: boolean; children?: ReactNode }) {
  const { rooms, status, error, load, create } = useRooms();
  // Rooms other owners added me to are not listed until accepted (docs/needs-you.md "Invitations").
  const invited = useNeeds((s) => s.invitationsTotal);
  const attention = useAttention((s) => s.rooms);
  const permission = useAttention((s) => s.notifyPermission);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string>();

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!name.trim()) return;
    setBusy(true);
    const r = await create(name.trim());
    setBusy(false);
    if (r.ok) {
      setName('');
      setErr(undefined);
      navigate('rooms', r.data.room_id, 'chat');
    } else setErr(describeError(r.error));
  }

  return (
    <aside id="sidebar" className="sidebar" aria-label="Rooms" hidden={hidden}>
      <h2>Rooms</h2>
      {status === 'loading' && <Loading what="rooms" />}
      {status === 'error' && <ErrorNote error={error} retry={() => void load()} what="rooms" />}
      {status === 'ready' && !rooms.some((r) => !r.invited) && <Empty>No rooms yet.</Empty>}
      <ul className="room-list">
        {/* A room another owner invited me to is not mine until I accept: Needs you lists it under Invitations. */}
        {rooms.filter((r) => !r.invited).map((r) => {
          const a = attention[r.room_id];
          const quiet = !a?.unread && !a?.mentions;
          return (
            <li key={r.room_id} className={quiet ? '' : 'has-unread'}>
              <a href={href('rooms', r.room_id, 'chat')} aria-current={r.room_id === currentRoom ? 'page' : undefined} title={r.name} data-room={r.room_id}>
                <span className="room-name">{r.name}</span>
                {r.cross_owner && (
                  <span className="xo" title="Agents of more than one owner" aria-label="cross-owner">
                    ⇄
                  </span>
                )}
                <Counts unread={a?.unread ?? 0} mentions={a?.mentions ?? 0} />
              </a>
            </li>
          );
        })}
      </ul>
      {invited > 0 && (
        <p className="invited-rooms">
          <a href={href('needs-you')}>
            {invited} invitation{invited === 1 ? '' : 's'} to accept or decline
          </a>
        </p>
      )}
      <form className="stack" onSubmit={submit}>
        <label htmlFor="new-room">New room</label>
        <input id="new-room" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} placeholder="Room name" />
        <button type="submit" disabled={busy || !name.trim()}>
          Create room
        </button>
        {err && (
          <p role="alert" className="error-text">
            {err}
          </p>
        )}
      </form>
      {permission === 'default' && (
        <p className="notify-ask">
          <button type="button" className="link" onClick={() => void useAttention.getState().askNotifications()}>
            Notify me when I am mentioned
          </button>
        </p>
      )}
      {children}
    </aside>
  );
}
