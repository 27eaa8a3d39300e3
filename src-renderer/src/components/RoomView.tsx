import { useEffect } from 'react';
import { useMembers, useRooms } from '../stores/rooms';
import { href } from '../router';
import { Loading, ErrorNote } from './States';
import { ChatView } from './ChatView';
import { BoardView } from './BoardView';
import { FilesView } from './FilesView';
import { MembersView } from './MembersView';
import { WorkspaceView } from './WorkspaceView';
import { WakesView } from './WakesView';
import { TrustToggle } from './TrustToggle';
import { ReservationsView } from './ReservationsView';

const TABS: Array<[string, string]> = [
  ['chat', 'Chat'],
  ['board', 'Board'],
  ['files', 'Files'],
  ['members', 'Members'],
  ['workspace', 'Workspace'],
  ['reservations', 'Reservations'],
  ['wakes', 'Wakes & feedback'],
];

export function RoomView({ roomId, tab }: { roomId: string; tab: string }) {
  const room = useRooms((s) => s.rooms.find((r) => r.room_id === roomId));
  const status = useRooms((s) => s.status);
  const error = useRooms((s) => s.error);
  const loadMembers = useMembers((s) => s.load);
  useEffect(() => {
    void loadMembers(roomId);
    // Instances come and go with MCP sessions; a slow poll backs up the live events.
    const t = setInterval(() => void loadMembers(roomId), 15_000);
    return () => clearInterval(t);
  }, [roomId, loadMembers]);

  if (!room) {
    if (status === 'ready') return <ErrorNote error="This room does not exist or you are not a member of it." />;
    if (status === 'error') return <ErrorNote error={error} what="the room" retry={() => void useRooms.getState().load()} />;
    return <Loading what="the room" />;
  }
  let body;
  switch (tab) {
    case 'board':
      body = <BoardView room={room} />;
      break;
    case 'files':
      body = <FilesView room={room} />;
      break;
    case 'members':
      body = <MembersView room={room} />;
      break;
    case 'workspace':
      body = <WorkspaceView room={room} />;
      break;
    case 'reservations':
      body = <ReservationsView room={room} />;
      break;
    case 'wakes':
      body = <WakesView room={room} />;
      break;
    default:
      body = <ChatView room={room} />;
  }
  return (
    <section className="room" aria-labelledby="room-title">
      <header className="room-head">
        <h1 id="room-title">{room.name}</h1>
        <span className="badge">{room.role === 'admin' ? 'admin' : 'member'}</span>
        {room.cross_owner && <span className="badge warn">cross-owner</span>}
        <TrustToggle room={room} />
      </header>
      <nav className="tabs" aria-label="Room sections">
        {TABS.map(([k, label]) => (
          <a key={k} href={href('rooms', roomId, k)} aria-current={(tab === k || (k === 'chat' && !TABS.some(([t]) => t === tab))) ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      <div className="room-body">{body}</div>
    </section>
  );
}
