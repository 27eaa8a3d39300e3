import { create } from 'zustand';

/** Window-level preferences: theme and the sidebar. Kept in localStorage, per browser. */
export type Theme = 'system' | 'light' | 'dark';

const NARROW = '(max-width: 760px)';

function readTheme(): Theme {
  const t = localStorage.getItem('ar.theme');
  return t === 'light' || t === 'dark' ? t : 'system';
}

export function applyTheme(t: Theme): void {
  if (t === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = t;
}

export function isNarrow(): boolean {
  return window.matchMedia(NARROW).matches;
}

interface UiState {
  theme: Theme;
  setTheme: (t: Theme) => void;
  /** Wide windows: the sidebar shows unless collapsed. Narrow windows: it opens over the content. */
  sidebarCollapsed: boolean;
  drawerOpen: boolean;
  narrow: boolean;
  toggleSidebar: () => void;
  closeDrawer: () => void;
}

export const useUi = create<UiState>((set, get) => ({
  theme: readTheme(),
  setTheme: (theme) => {
    if (theme === 'system') localStorage.removeItem('ar.theme');
    else localStorage.setItem('ar.theme', theme);
    applyTheme(theme);
    set({ theme });
  },
  sidebarCollapsed: localStorage.getItem('ar.sidebar') === 'collapsed',
  drawerOpen: false,
  narrow: isNarrow(),
  toggleSidebar: () => {
    if (get().narrow) return set({ drawerOpen: !get().drawerOpen });
    const c = !get().sidebarCollapsed;
    localStorage.setItem('ar.sidebar', c ? 'collapsed' : 'shown');
    set({ sidebarCollapsed: c });
  },
  closeDrawer: () => set({ drawerOpen: false }),
}));

applyTheme(readTheme());
window.matchMedia(NARROW).addEventListener('change', (e) => useUi.setState({ narrow: e.matches, drawerOpen: false }));
// A route change on a narrow window is a choice made in the drawer: close it.
window.addEventListener('hashchange', () => useUi.getState().closeDrawer());
