import { create } from 'zustand';
import { setOfflineRefusal } from '../api';

/**
 * Whether the server answers. Lost when the event stream drops (or a request cannot reach
 * the server); found again when the stream reopens, which refreshes every loaded view.
 */
interface ConnectionState {
  online: boolean;
  lostAt: number | null;
  setOnline: (online: boolean) => void;
}

export const useConnection = create<ConnectionState>((set, get) => ({
  online: true,
  lostAt: null,
  setOnline: (online) => {
    if (online === get().online) return;
    set({ online, lostAt: online ? null : Date.now() });
  },
}));

// Changes are refused while the server is away, with words that say so, instead of a raw network error.
setOfflineRefusal(() =>
  useConnection.getState().online
    ? undefined
    : { code: 'OFFLINE', message: 'Not sent: the Agent Rooms server cannot be reached. Try again once the connection is back.', status: 0 },
);
