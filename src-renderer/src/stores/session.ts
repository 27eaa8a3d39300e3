import { create } from 'zustand';
import { setSessionToken, setUnauthenticatedHandler } from '../api';
import { client } from '../client';
import { useRooms } from './rooms';
import type { Me } from '../types';

interface SessionState {
  me: Me | null;
  status: 'loading' | 'signed-in' | 'signed-out' | 'error';
  error: string | null;
  load: () => Promise<void>;
  /** Who I am, again, signed in as before (my rights changed): no sign-in state in between. */
  refresh: () => Promise<void>;
}

/**
 * Who last signed in with this browser, so the signed-out page says how that person gets back
 * in: the primary owner runs `npx agent-rooms open`, anyone else asks the primary owner (named
 * when known) for a sign-in link. Names only, no secret.
 */
export interface LastSignedIn {
  name: string;
  is_primary: boolean;
  primary_name?: string;
}
const LAST_KEY = 'agent-rooms.last-signed-in';

function local(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

export function lastSignedIn(): LastSignedIn | null {
  try {
    const v = JSON.parse(local()?.getItem(LAST_KEY) ?? 'null') as LastSignedIn | null;
    return v && typeof v.name === 'string' && typeof v.is_primary === 'boolean' ? v : null;
  } catch {
    return null;
  }
}

function remember(v: LastSignedIn): void {
  try {
    local()?.setItem(LAST_KEY, JSON.stringify(v));
  } catch {
    // storage full or disabled: the signed-out page then gives both ways in
  }
}

export const useSession = create<SessionState>((set) => ({
  me: null,
  status: 'loading',
  error: null,
  load: async () => {
    const r = await client.owners.me();
    if (r.ok) {
      const before = lastSignedIn();
      remember({ name: r.data.name, is_primary: r.data.is_primary, primary_name: before && before.name === r.data.name ? before.primary_name : undefined });
      return set({ status: 'signed-in', me: r.data, error: null });
    }
    if (r.status === 401) {
      setSessionToken(null); // ended or expired: forget it
      return set({ status: 'signed-out', me: null, error: null });
    }
    set({ status: 'error', error: r.error.message });
  },
  refresh: async () => {
    const r = await client.owners.me();
    if (r.ok) set({ me: r.data });
  },
}));

// The primary owner's name, once the people are loaded: what a signed-out teammate is told to ask.
useRooms.subscribe((s, prev) => {
  if (s.owners === prev.owners) return;
  const me = useSession.getState().me;
  const primary = s.owners.find((o) => o.is_primary);
  if (me && primary && !me.is_primary) remember({ name: me.name, is_primary: false, primary_name: primary.name });
});

// A refused session (revoked in Settings, signed out in another browser, unused for 30 days) is forgotten: the sign-in page shows.
setUnauthenticatedHandler(() => {
  setSessionToken(null);
  useSession.setState({ status: 'signed-out', me: null });
});
