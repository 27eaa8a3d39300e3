import { useEffect, useState } from 'react';
import { useSession } from './stores/session';
import { useRooms } from './stores/rooms';
import { useUi, type Theme } from './stores/ui';
import { useConnection } from './stores/connection';
import { useAttention, windowTitle } from './stores/attention';
import { useAgents } from './stores/agents';
import { startEvents, onLiveState, type LiveState } from './live-events';
import { useRoute, href } from './router';
import { Loading, ErrorNote } from './components/States';
import { RoomsSidebar } from './components/RoomsSidebar';
import { RoomView } from './components/RoomView';
import { AgentsView } from './components/AgentsView';
import { ReportsView } from './components/ReportsView';
import { Onboarding } from './components/Onboarding';
import { PeopleView } from './components/PeopleView';
import { SignIn, SignedOut } from './components/SignIn';
import { pendingLogin } from './login';
import { signOut } from './session-api';
import { BackupPanel } from './components/BackupPanel';
import { NeedsYouView, NeedsCount, Invitations } from './components/NeedsYouView';
import { followNeeds, useNeeds, needsCount } from './stores/needs';
import { SettingsView } from './components/SettingsView';
import { Palette, useShortcuts } from './components/Palette';

function PaletteButton() {
  const mac = /Mac|iPhone|iPad/.test(navigator.platform);
  return (
    <button type="button" className="ghost palette-button" onClick={() => window.dispatchEvent(new Event('agent-rooms:palette'))} aria-keyshortcuts={mac ? 'Meta+K' : 'Control+K'} title={`Search everything (${mac ? '⌘K' : 'Ctrl+K'})`}>
      <span aria-hidden="true">⌕</span> <span className="palette-label">Search</span> <kbd>{mac ? '⌘K' : 'Ctrl K'}</kbd>
    </button>
  );
}

function LiveBadge() {
  const [s, setS] = useState<LiveState>('connecting');
  useEffect(() => onLiveState(setS), []);
  const text = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' }[s];
  return (
    <span className={`live-badge ${s}`} role="status" aria-live="polite" title="Live updates from the server">
      <span className="dot" aria-hidden="true" /> <span className="live-text">{text}</span>
    </span>
  );
}

/** The server is away: say so plainly, keep what is on screen (marked stale), hold changes. */
function ConnectionBanner() {
  const online = useConnection((s) => s.online);
  const lostAt = useConnection((s) => s.lostAt);
  if (online) return null;
  const since = lostAt ? new Date(lostAt).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) : '';
  return (
    <div className="conn-banner" role="alert" data-testid="connection-banner">
      <strong>Connection to the Agent Rooms server lost{since ? ` at ${since}` : ''}.</strong> What you see may be out of date; changes are not sent until it is
      back. Reconnecting…
    </div>
  );
}

function ThemeSwitch() {
  const theme = useUi((s) => s.theme);
  const setTheme = useUi((s) => s.setTheme);
  return (
    <label className="theme-switch">
      <span className="sr-only">Theme</span>
      <select aria-label="Theme" value={theme} onChange={(e) => setTheme(e.target.value as Theme)}>
        <option value="system">System theme</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}

/** Sign-out is a same-origin request with the tab's token that ends its session (session-api.ts), then a fresh page. */
function SignOut() {
  return (
    <button type="button" onClick={() => void signOut().finally(() => window.location.replace('/'))}>
      Sign out
    </button>
  );
}

function Home() {
  const status = useRooms((s) => s.status);
  const agents = useAgents((s) => s.agents);
  const agentsStatus = useAgents((s) => s.status);
  useEffect(() => {
    if (useAgents.getState().status === 'idle') void useAgents.getState().load();
  }, []);
  const firstRun = status === 'ready' && agentsStatus === 'ready' && agents.length === 0;
  // Once the first-run flow shows, it stays while its agent is created and connected.
  const [inFlow, setInFlow] = useState(false);
  useEffect(() => {
    if (firstRun) setInFlow(true);
  }, [firstRun]);
  // Invitations wait even before a first agent: another owner may have added me to a room.
  if (firstRun || inFlow)
    return (
      <>
        <Invitations />
        <Onboarding firstRun />
      </>
    );
  return <NeedsYouView />;
}

export function App() {
  const { me, status, error, load } = useSession();
  const route = useRoute();
  const { sidebarCollapsed, drawerOpen, narrow, toggleSidebar, closeDrawer } = useUi();
  const online = useConnection((s) => s.online);
  const rooms = useRooms((s) => s.rooms);
  const attention = useAttention((s) => s.rooms);
  const [loginToken] = useState(pendingLogin.token);
  useEffect(() => {
    if (!loginToken) void load();
  }, [load, loginToken]);
  useEffect(() => {
    if (status === 'signed-in' && me) {
      useAttention.getState().setOwner(me.owner_id);
      startEvents();
      void useRooms.getState().load();
      void useRooms.getState().loadOwners();
      return followNeeds();
    }
  }, [status, me]);
  // Unread counts are of my rooms: a room I am only invited to counts nothing until I accept.
  useEffect(() => useRooms.subscribe((s, prev) => s.rooms !== prev.rooms && useAttention.getState().syncRooms(s.rooms.filter((r) => !r.invited))), []);

  const [section, id, tab] = route;
  useShortcuts(status === 'signed-in');
  // The start page has its own address: #/ becomes #/needs-you (replaced, so Back does not return to #/).
  useEffect(() => {
    if (status === 'signed-in' && !section) window.location.replace('#/needs-you');
  }, [status, section]);
  const roomName = section === 'rooms' && id ? rooms.find((r) => r.room_id === id)?.name : undefined;
  const waiting = Object.values(attention).reduce((n, a) => n + a.unread, 0);
  // The tab title counts what waits on me: unread messages and Needs you, a mention still unread counted once.
  const needs = useNeeds((s) => needsCount(s) - s.items.filter((i) => i.kind === 'mention' && (i.message?.seq ?? 0) > (attention[i.room.room_id]?.lastRead ?? Infinity)).length);
  useEffect(() => {
    document.title = windowTitle(roomName, waiting + needs);
  }, [roomName, waiting, needs]);

  // A fresh start after sign-in (or cancel): no store keeps what another owner's session loaded.
  if (loginToken) return <SignIn token={loginToken} onDone={() => window.location.replace('/' + window.location.hash)} />;
  if (status === 'loading') return <Loading what="your session" />;
  if (status === 'signed-out') return <SignedOut />;
  if (status === 'error') return <ErrorNote error={error ?? 'Could not reach the Agent Rooms server.'} retry={() => void load()} />;

  let main;
  if (section === 'rooms' && id) main = <RoomView key={id} roomId={id} tab={tab ?? 'chat'} sub={route[3]} part={route[4]} />;
  else if (section === 'agents') main = <AgentsView plate={id} />;
  else if (section === 'reports') main = <ReportsView />;
  else if (section === 'welcome') main = <Onboarding />;
  else if (section === 'people') main = <PeopleView />;
  else if (section === 'settings') main = <SettingsView isPrimary={!!me?.is_primary} />;
  else main = <Home />;

  const sidebarShown = narrow ? drawerOpen : !sidebarCollapsed;
  return (
    <div className={`app ${sidebarShown ? 'sidebar-shown' : 'sidebar-hidden'} ${narrow ? 'narrow' : 'wide'} ${online ? '' : 'offline'}`}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button type="button" className="ghost sidebar-toggle" aria-expanded={sidebarShown} aria-controls="sidebar" onClick={toggleSidebar} title="Show or hide the rooms">
          <span aria-hidden="true">☰</span>
          <span className="sr-only">Rooms sidebar</span>
          {!sidebarShown && waiting > 0 && (
            <span className="unread" aria-hidden="true">
              {waiting}
            </span>
          )}
        </button>
        <a className="brand" href={href('needs-you')}>
          Agent Rooms
        </a>
        <nav aria-label="Sections">
          <a href={href('needs-you')} aria-current={!section || section === 'needs-you' ? 'page' : undefined}>
            Needs you
            <NeedsCount />
          </a>
          <a href={href('agents')} aria-current={section === 'agents' || section === 'welcome' ? 'page' : undefined}>
            Agents
          </a>
          {me?.is_primary && (
            <a href={href('people')} aria-current={section === 'people' ? 'page' : undefined}>
              People
            </a>
          )}
          <a href={href('reports')} aria-current={section === 'reports' ? 'page' : undefined}>
            Reports
          </a>
          <a href={href('settings')} aria-current={section === 'settings' ? 'page' : undefined}>
            Settings
          </a>
        </nav>
        <PaletteButton />
        <LiveBadge />
        {!narrow && <BackupPanel isPrimary={!!me?.is_primary} />}
        {!narrow && <ThemeSwitch />}
        <span className="who" data-testid="signed-in-as">
          <span className="who-label">Signed in as </span>
          <strong>{me?.name}</strong> <span className="muted who-handle">{me?.handle}</span>
        </span>
        {!narrow && <SignOut />}
      </header>
      <ConnectionBanner />
      {narrow && drawerOpen && <div className="scrim" aria-hidden="true" onClick={closeDrawer} />}
      <RoomsSidebar currentRoom={section === 'rooms' ? id : undefined} hidden={!sidebarShown}>
        {narrow && (
          <div className="drawer-foot">
            <BackupPanel isPrimary={!!me?.is_primary} />
            <ThemeSwitch />
            <SignOut />
          </div>
        )}
      </RoomsSidebar>
      <main id="main" className={`content ${online ? '' : 'stale'}`} tabIndex={-1} aria-describedby={online ? undefined : 'stale-note'}>
        {!online && (
          <p id="stale-note" className="stale-note">
            Stale: shown as last loaded.
          </p>
        )}
        {main}
      </main>
      <Palette />
    </div>
  );
}
