import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { client } from '../client';
import { useRooms } from '../stores/rooms';
import { href } from '../router';
import type { SearchResult } from '../types';
import { Dialog } from './Dialog';

export const OPEN_PALETTE = 'agent-rooms:palette';

interface Hit {
  key: string;
  kind: 'room' | 'message' | 'task' | 'file' | 'decision';
  title: string;
  detail: string;
  room: string;
  to: string;
}

const KIND_WORD: Record<Hit['kind'], string> = { room: 'Room', message: 'Message', task: 'Task', file: 'File', decision: 'Decision' };

/** Where a search hit goes: a message to its link (loaded around it), a task to its page, a file to its row in the room's files (`#/rooms/:id/files/<path>`). */
function target(r: SearchResult): string {
  if (r.kind === 'message' && r.seq !== undefined) return href('rooms', r.room, 'messages', String(r.seq));
  if (r.kind === 'task' && (r.task_id || r.id)) return href('rooms', r.room, 'tasks', r.task_id ?? r.id);
  if (r.kind === 'file') return r.path ? href('rooms', r.room, 'files', r.path) : href('rooms', r.room, 'files');
  return href('rooms', r.room);
}

/**
 * A search across every room of the caller (contracts.search.all, docs/search.md); a server that
 * still wants one room (400/404) is asked room by room.
 */
async function searchAll(q: string, rooms: string[]): Promise<SearchResult[]> {
  const all = await client.search.all({ query: { q, limit: 30 } });
  if (all.ok) return all.data.results;
  const per = await Promise.all(rooms.slice(0, 20).map((r) => client.search.room({ params: { id: r }, query: { q, limit: 8 } })));
  return per.flatMap((r) => (r.ok ? r.data.results : [])).sort((a, b) => b.rank - a.rank);
}

function PaletteDialog({ onClose }: { onClose: () => void }) {
  const rooms = useRooms((s) => s.rooms);
  const [q, setQ] = useState('');
  const [results, setResults] = useState<SearchResult[]>([]);
  const [searching, setSearching] = useState(false);
  const [active, setActive] = useState(0);
  const listRef = useRef<HTMLUListElement>(null);
  const roomName = useMemo(() => new Map(rooms.map((r) => [r.room_id, r.name])), [rooms]);
  useEffect(() => {
    const query = q.trim();
    if (query.length < 2) {
      setResults([]);
      return;
    }
    let live = true;
    setSearching(true);
    const t = setTimeout(() => {
      void searchAll(
        query,
        rooms.map((r) => r.room_id),
      ).then((r) => {
        if (!live) return;
        setResults(r);
        setSearching(false);
      });
    }, 150);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [q, rooms]);
  const hits = useMemo<Hit[]>(() => {
    const needle = q.trim().toLowerCase();
    const roomHits: Hit[] = rooms
      .filter((r) => !needle || r.name.toLowerCase().includes(needle))
      .slice(0, needle ? 5 : 8)
      .map((r) => ({ key: `room:${r.room_id}`, kind: 'room', title: r.name, detail: 'Room', room: r.room_id, to: href('rooms', r.room_id) }));
    const found: Hit[] = results.map((r) => {
      const title = r.title ?? r.path ?? '';
      return {
        key: `${r.kind}:${r.id}`,
        kind: r.kind,
        title: r.kind === 'file' ? (r.path ?? title) : r.kind === 'task' ? title || r.snippet : r.snippet,
        detail: `${KIND_WORD[r.kind]} in ${roomName.get(r.room) ?? 'a room'}`,
        room: r.room,
        to: target(r),
      };
    });
    return [...roomHits, ...found];
  }, [rooms, results, q, roomName]);
  const at = Math.min(active, Math.max(0, hits.length - 1));
  const choose = (h: Hit | undefined) => {
    if (!h) return;
    onClose();
    window.location.hash = h.to.slice(1);
  };
  function onKey(e: KeyboardEvent) {
    if (e.key === 'ArrowDown' || (e.ctrlKey && e.key === 'n')) setActive(Math.min(hits.length - 1, at + 1));
    else if (e.key === 'ArrowUp' || (e.ctrlKey && e.key === 'p')) setActive(Math.max(0, at - 1));
    else if (e.key === 'Enter') choose(hits[at]);
    else return;
    e.preventDefault();
  }
  useEffect(() => {
    listRef.current?.querySelector(`[data-index="${at}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [at]);
  return (
    <Dialog title="Go to anything" onClose={onClose} wide>
      <div className="palette" onKeyDown={onKey}>
        <input
          type="search"
          autoFocus
          role="combobox"
          aria-expanded={hits.length > 0}
          aria-controls="palette-results"
          aria-activedescendant={hits[at] ? `palette-hit-${at}` : undefined}
          aria-label="Search messages, tasks, files and rooms"
          placeholder="Search messages, tasks, files and rooms of every room"
          value={q}
          onChange={(e) => {
            setQ(e.target.value);
            setActive(0);
          }}
        />
        <p className="muted" role="status">
          {q.trim().length < 2 ? 'Type at least two characters to search every room.' : searching ? 'Searching…' : `${hits.length} ${hits.length === 1 ? 'result' : 'results'}`}
        </p>
        <ul id="palette-results" role="listbox" aria-label="Results" className="palette-results plain" ref={listRef}>
          {hits.map((h, i) => (
            <li
              key={h.key}
              id={`palette-hit-${i}`}
              data-index={i}
              role="option"
              aria-selected={i === at}
              className={i === at ? 'active' : ''}
              onMouseEnter={() => setActive(i)}
              onClick={() => choose(h)}
            >
              <span className={`palette-kind k-${h.kind}`}>{KIND_WORD[h.kind]}</span> <span className="palette-title">{h.title}</span>{' '}
              <span className="muted palette-detail">{h.detail}</span>
            </li>
          ))}
        </ul>
      </div>
    </Dialog>
  );
}

/** The palette's dialog, opened by Ctrl/⌘+K, the top bar's Search button or "/" outside a room's chat. */
export function Palette() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const show = () => setOpen(true);
    window.addEventListener(OPEN_PALETTE, show);
    return () => window.removeEventListener(OPEN_PALETTE, show);
  }, []);
  return open ? <PaletteDialog onClose={() => setOpen(false)} /> : null;
}

const typing = (t: EventTarget | null) => t instanceof HTMLElement && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));

/** Window-wide keys: Ctrl/⌘+K the palette; "/" the room's message search (or the palette elsewhere). */
export function useShortcuts(on: boolean): void {
  useEffect(() => {
    if (!on) return;
    const onKeyDown = (e: globalThis.KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && (e.key === 'k' || e.key === 'K')) {
        e.preventDefault();
        window.dispatchEvent(new Event(OPEN_PALETTE));
        return;
      }
      if (e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !typing(e.target) && !document.querySelector('dialog[open]')) {
        e.preventDefault();
        const box = document.querySelector<HTMLInputElement>('input[aria-label="Search messages"]');
        if (box) box.focus();
        else window.dispatchEvent(new Event(OPEN_PALETTE));
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [on]);
}
