import { useState, type FormEvent } from 'react';
import { useRooms } from '../stores/rooms';
import { href, navigate } from '../router';
import { Loading, ErrorNote, Empty } from './States';
import { describeError } from '../api';

export function RoomsSidebar({ currentRoom }: { currentRoom?: string }) {
  const { rooms, status, error, load, create } = useRooms();
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
    <aside className="sidebar" aria-label="Rooms">
      <h2>Rooms</h2>
      {status === 'loading' && <Loading what="rooms" />}
      {status === 'error' && <ErrorNote error={error} retry={() => void load()} what="rooms" />}
      {status === 'ready' && rooms.length === 0 && <Empty>No rooms yet.</Empty>}
      <ul className="room-list">
        {rooms.map((r) => (
          <li key={r.room_id}>
            <a href={href('rooms', r.room_id, 'chat')} aria-current={r.room_id === currentRoom ? 'page' : undefined}>
              <span className="room-name">{r.name}</span>
              {r.cross_owner && (
                <span className="badge" title="Agents of more than one owner">
                  cross-owner
                </span>
              )}
            </a>
          </li>
        ))}
      </ul>
      <form className="stack" onSubmit={submit}>
        <label htmlFor="new-room">New room</label>
        <input id="new-room" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} placeholder="Room name" />
        <button type="submit" disabled={busy || !name.trim()}>
          Create room
        </button>
        {err && <p role="alert" className="error-text">{err}</p>}
      </form>
    </aside>
  );
}
