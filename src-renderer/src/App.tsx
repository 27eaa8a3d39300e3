import { useEffect, useState } from 'react';
import { useSession } from './stores/session';
import { useRooms } from './stores/rooms';
import { startEvents, onLiveState, type LiveState } from './live-events';
import { useRoute, href } from './router';
import { Loading, ErrorNote } from './components/States';
import { RoomsSidebar } from './components/RoomsSidebar';
import { RoomView } from './components/RoomView';
import { AgentsView } from './components/AgentsView';
import { ReportsView } from './components/ReportsView';
import { BackupPanel } from './components/BackupPanel';

function SignedOut() {
  return (
    <main className="signed-out">
      <h1>Agent Rooms</h1>
      <p>You are not signed in.</p>
      <p>
        Sign in with the one-time login link that <code>agent-rooms serve</code> printed, or run <code>agent-rooms open</code> for a fresh one. Each link works
        once, for five minutes.
      </p>
    </main>
  );
}

function LiveBadge() {
  const [s, setS] = useState<LiveState>('connecting');
  useEffect(() => onLiveState(setS), []);
  const text = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' }[s];
  return (
    <span className={`live-badge ${s}`} role="status" aria-live="polite" title="Live updates from the server">
      <span className="dot" aria-hidden="true" /> {text}
    </span>
  );
}

function Home() {
  const { rooms, status } = useRooms();
  return (
    <section className="home">
      <h1>Welcome to Agent Rooms</h1>
      {status === 'ready' && rooms.length === 0 ? (
        <p>You have no rooms yet. Create one in the sidebar, then add your agents from the Agents page.</p>
      ) : (
        <p>Pick a room in the sidebar to see its chat, board and files.</p>
      )}
      <p>
        <a href={href('agents')}>Manage your agents</a> to create credentials and connect Claude Code, Codex, Gemini CLI or Cursor.
      </p>
    </section>
  );
}

export function App() {
  const { me, status, error, load } = useSession();
  const route = useRoute();
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (status === 'signed-in') {
      startEvents();
      void useRooms.getState().load();
      void useRooms.getState().loadOwners();
    }
  }, [status]);

  if (status === 'loading') return <Loading what="your session" />;
  if (status === 'signed-out') return <SignedOut />;
  if (status === 'error') return <ErrorNote error={error ?? 'Could not reach the Agent Rooms server.'} retry={() => void load()} />;

  const [section, id, tab] = route;
  let main;
  if (section === 'rooms' && id) main = <RoomView key={id} roomId={id} tab={tab ?? 'chat'} />;
  else if (section === 'agents') main = <AgentsView plate={id} />;
  else if (section === 'reports') main = <ReportsView />;
  else main = <Home />;

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <a className="brand" href={href()}>
          Agent Rooms
        </a>
        <nav aria-label="Sections">
          <a href={href()} aria-current={section === 'rooms' || !section ? 'page' : undefined}>
            Rooms
          </a>
          <a href={href('agents')} aria-current={section === 'agents' ? 'page' : undefined}>
            Agents
          </a>
          <a href={href('reports')} aria-current={section === 'reports' ? 'page' : undefined}>
            Reports
          </a>
        </nav>
        <LiveBadge />
        <BackupPanel isPrimary={!!me?.is_primary} />
        <span className="who" data-testid="signed-in-as">
          Signed in as <strong>{me?.name}</strong> <span className="muted">{me?.handle}</span>
        </span>
        <form method="post" action="/logout">
          <button type="submit">Sign out</button>
        </form>
      </header>
      <RoomsSidebar currentRoom={section === 'rooms' ? id : undefined} />
      <main id="main" className="content" tabIndex={-1}>
        {main}
      </main>
    </div>
  );
}
