import { useEffect } from 'react';
import { create } from 'zustand';

interface Me {
  owner_id: string;
  name: string;
  handle: string;
}

interface SessionState {
  me: Me | null;
  status: 'loading' | 'signed-in' | 'signed-out' | 'error';
  load: () => Promise<void>;
}

const useSession = create<SessionState>((set) => ({
  me: null,
  status: 'loading',
  load: async () => {
    try {
      const r = await fetch('/v1/me', { credentials: 'same-origin' });
      if (r.status === 401) return set({ status: 'signed-out', me: null });
      if (!r.ok) return set({ status: 'error' });
      set({ status: 'signed-in', me: (await r.json()) as Me });
    } catch {
      set({ status: 'error' });
    }
  },
}));

export function App() {
  const { me, status, load } = useSession();
  useEffect(() => {
    void load();
  }, [load]);
  if (status === 'loading') return <p>Loading…</p>;
  if (status === 'signed-out')
    return (
      <main>
        <h1>Agent Rooms</h1>
        <p>Sign in with the one-time login link that <code>agent-rooms serve</code> printed, or run <code>agent-rooms open</code>.</p>
      </main>
    );
  if (status === 'error') return <p role="alert">Could not reach the Agent Rooms server.</p>;
  return (
    <main>
      <h1>Agent Rooms</h1>
      <p>Signed in as {me?.name}</p>
    </main>
  );
}
