import { useEffect } from 'react';
import { useMembers, useRooms } from '../stores/rooms';
import { useSession } from '../stores/session';
import { href, navigate } from '../router';
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

/**
 * `tab` is the route's third part; `sub` the fourth (a task id under `tasks`, a message seq under `messages`, a file's path under `files`, `new` under `board`);
 * `part` the fifth (`changes` under a task: its Changes tab).
 */
export function RoomView({ roomId, tab, sub, part }: { roomId: string; tab: string; sub?: string; part?: string }) {
  const room = useRooms((s) => s.rooms.find((r) => r.room_id === roomId));
  const status = useRooms((s) => s.status);
  const error = useRooms((s) => s.error);
  const loadMembers = useMembers((s) => s.load);
  const members = useMembers((s) => s.rooms[roomId]?.data);
  const meId = useSession((s) => s.me?.owner_id);
  // Trust concerns other owners: shown only where another owner's agents or humans are.
  const othersHere = !!room && (room.cross_owner || !!members?.humans.some((h) => h.owner_id !== meId) || !!members?.agents.some((a) => a.owner.owner_id !== meId));
  useEffect(() => {
    void loadMembers(roomId);
    // Instances come and go with MCP sessions; a slow poll backs up the live events.
    const t = setInterval(() => void loadMembers(roomId), 15_000);
    return () => clearInterval(t);
  }, [roomId, loadMembers]);

  // c: a new task from any view of the room (the board handles it itself): the board's New task form.
  const onBoard = tab === 'board' || tab === 'tasks';
  useEffect(() => {
    if (onBoard) return;
    const onKeyDown = (e: globalThis.KeyboardEvent) => {
      if (e.key !== 'c' || e.ctrlKey || e.metaKey || e.altKey || e.shiftKey || e.defaultPrevented || e.repeat) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) || t.closest('dialog'))) return;
      if (document.querySelector('dialog[open]')) return;
      e.preventDefault();
      navigate('rooms', roomId, 'board', 'new');
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [onBoard, roomId]);

  if (!room) {
    if (status === 'ready') return <ErrorNote error="This room does not exist or you are not a member of it." />;
    if (status === 'error') return <ErrorNote error={error} what="the room" retry={() => void useRooms.getState().load()} />;
    return <Loading what="the room" />;
  }
  let body;
  switch (tab) {
    case 'board':
      body = <BoardView room={room} newTask={sub === 'new'} />;
      break;
    case 'tasks':
      body = <BoardView room={room} openTaskId={sub} openTaskView={part} />;
      break;
    case 'messages':
      body = <ChatView room={room} focusSeq={sub && /^\d+$/.test(sub) ? Number(sub) : undefined} />;
      break;
    case 'files':
      body = <FilesView room={room} focusPath={sub} />;
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
        {othersHere && <TrustToggle room={room} />}
      </header>
      <nav className="tabs" aria-label="Room sections">
        {TABS.map(([k, label]) => (
          <a
            key={k}
            href={k === 'chat' ? href('rooms', roomId) : href('rooms', roomId, k)}
            aria-current={tab === k || (k === 'board' && tab === 'tasks') || (k === 'chat' && !TABS.some(([t]) => t === tab) && tab !== 'tasks') ? 'page' : undefined}
          >
            {label}
          </a>
        ))}
      </nav>
      <div className="room-body">{body}</div>
    </section>
  );
}
