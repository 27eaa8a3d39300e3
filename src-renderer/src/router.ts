import { useSyncExternalStore } from 'react';

/**
 * Hash routes (docs/ui.md): #/needs-you (the start page), #/rooms/:id (messages),
 * #/rooms/:id/messages/:messageId, #/rooms/:id/board, #/rooms/:id/tasks/:taskId,
 * #/rooms/:id/:tab, #/agents/:plate?, #/settings, #/reports, #/people, #/welcome.
 * The core serves one page.
 */
function read(): string[] {
  return window.location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
}

let current = read();
const listeners = new Set<() => void>();
window.addEventListener('hashchange', () => {
  current = read();
  for (const l of listeners) l();
});

export function useRoute(): string[] {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
  );
}

export function href(...parts: string[]): string {
  return '#/' + parts.map(encodeURIComponent).join('/');
}

export function navigate(...parts: string[]): void {
  window.location.hash = href(...parts).slice(1);
}
