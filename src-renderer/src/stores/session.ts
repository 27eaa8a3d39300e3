import { create } from 'zustand';
import { borrowSession, get, setSessionToken, setUnauthenticatedHandler } from '../api';
import type { Me } from '../types';

interface SessionState {
  me: Me | null;
  status: 'loading' | 'signed-in' | 'signed-out' | 'error';
  error: string | null;
  load: () => Promise<void>;
}

export const useSession = create<SessionState>((set) => ({
  me: null,
  status: 'loading',
  error: null,
  load: async () => {
    await borrowSession();
    const r = await get<Me>('/v1/me');
    if (r.ok) return set({ status: 'signed-in', me: r.data, error: null });
    if (r.status === 401) {
      setSessionToken(null); // ended or expired: forget it
      return set({ status: 'signed-out', me: null, error: null });
    }
    set({ status: 'error', error: r.error.message });
  },
}));

setUnauthenticatedHandler(() => useSession.setState({ status: 'signed-out', me: null }));
