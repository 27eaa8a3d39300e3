import { memo, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useChat } from '../stores/chat';
import { phaseOf } from '../stores/room-resource';
import { useAttention } from '../stores/attention';
import { client } from '../client';
import { useMembers } from '../stores/rooms';
import { useSession } from '../stores/session';
import type { Message, Room, SearchResult } from '../types';
import { VirtualList } from './VirtualList';
import { Loading, ErrorNote, Empty } from './States';
import { Composer, type Candidate } from './Composer';
import { MessageBody, dePlate } from './MessageBody';
import { formatTime } from './time';
import { deliveryIds, useMessageWakes } from '../stores/message-wakes';
import { MentionStatus } from './MentionStatus';
import { onLiveEvent } from '../live-events';
import { href, navigate } from '../router';
import type { MessageDelivery } from '../types';

const time = formatTime;

/**
 * Plate → handle, from the room's members and `extra` messages. The same Map comes back while its
 * entries are the same (a page of older messages rarely adds any): every chat row takes it as a prop,
 * and a new Map would render every row again (docs/ui.md, "Long history").
 */
export function usePlateHandles(roomId: string, extra: Message[] = []): Map<string, string> {
  const members = useMembers((s) => s.rooms[roomId]?.data);
  const held = useRef<Map<string, string>>(undefined);
  return useMemo(() => {
    const m = new Map<string, string>();
    for (const msg of extra) {
      if (msg.sender.plate) m.set(msg.sender.plate, msg.sender.handle);
      for (const x of msg.mentions) if (x.plate) m.set(x.plate, x.handle);
    }
    for (const a of members?.agents ?? []) m.set(a.plate, a.handle);
    const prev = held.current;
    if (prev && prev.size === m.size && [...m].every(([k, v]) => prev.get(k) === v)) return prev;
    held.current = m;
    return m;
  }, [members, extra]);
}

export function useCandidates(roomId: string): Candidate[] {
  const members = useMembers((s) => s.rooms[roomId]?.data);
  return useMemo(() => {
    if (!members) return [];
    return [
      ...members.agents.filter((a) => !a.revoked).map((a) => ({ handle: a.handle, label: `${a.name} (agent of ${a.owner.name})`, kind: 'agent' as const })),
      ...members.instances.map((i) => ({ handle: i.handle, label: `live instance on ${i.host}`, kind: 'instance' as const })),
      ...members.humans.map((h) => ({ handle: h.handle, label: `${h.name} (human)`, kind: 'human' as const })),
    ];
  }, [members]);
}

/** Consecutive messages of one sender within five minutes read as one block. */
const GROUP_MS = 5 * 60_000;
function continues(prev: Message | undefined, m: Message): boolean {
  return !!prev && prev.sender.handle === m.sender.handle && !m.parent_id && !prev.parent_id && Date.parse(m.created_at) - Date.parse(prev.created_at) < GROUP_MS;
}

const MessageRow = memo(function MessageRow({
  m,
  replies,
  meId,
  plates,
  compact,
  firstUnread,
  orphan,
  onThread,
  highlight,
  wakes,
}: {
  highlight?: boolean;
  /** What became of each agent the message mentions (stores/message-wakes.ts). */
  wakes?: MessageDelivery[];
  m: Message;
  replies: number;
  meId?: string;
  plates: Map<string, string>;
  compact?: boolean;
  firstUnread?: boolean;
  /** A reply whose thread root is not loaded: shown in the main list, marked as a reply. */
  orphan?: boolean;
  onThread?: (root: Message) => void;
}) {
  const mentionsMe = m.mentions.some((x) => x.kind === 'human' && x.owner_id === meId);
  const at = time(m.created_at);
  return (
    <article
      className={`msg ${highlight ? 'highlight' : ''} ${compact ? 'compact' : ''} ${mentionsMe ? 'mentions-me' : ''} ${m.sender.owner_id === meId && m.sender.kind === 'human' ? 'mine' : ''} ${firstUnread ? 'first-unread' : ''}`}
      aria-label={`Message ${m.seq} from ${m.sender.handle}`}
      data-seq={m.seq}
    >
      {firstUnread && (
        <div className="unread-line" role="separator" aria-label="New messages">
          <span>New</span>
        </div>
      )}
      <header className={compact ? 'sr-only' : undefined}>
        <strong className="sender">{m.sender.name}</strong> <span className="handle">{m.sender.handle}</span>
        {m.sender.kind === 'agent' && <span className="badge">agent</span>}
        <a className="permalink" href={href('rooms', m.room, 'messages', String(m.seq))} aria-label={`${at}, link to message ${m.seq}`}>
          <time dateTime={m.created_at}>{at}</time>
        </a>
        {mentionsMe && <span className="badge me">mentions you</span>}
      </header>
      {orphan && <p className="reply-to">↳ reply to an earlier message</p>}
      <MessageBody body={m.body} mentions={m.mentions} meId={meId} plates={plates} />
      <MentionStatus m={m} deliveries={wakes} />
      {onThread && (
        <footer>
          {replies > 0 && (
            <button type="button" className="link" onClick={() => onThread(m)}>
              {`${replies} ${replies === 1 ? 'reply' : 'replies'}`}
            </button>
          )}
          <button type="button" className="link hover-action" onClick={() => onThread(m)}>
            Reply in thread
          </button>
        </footer>
      )}
    </article>
  );
});

type Row = { kind: 'start'; key: string } | { kind: 'msg'; key: string; m: Message; prev?: Message; orphan: boolean };

/** The search's text with its matches marked, from UTF-16 offsets (never as HTML). */
function Highlighted({ text, spans }: { text: string; spans: SearchResult['highlights'] }) {
  const out: ReactNode[] = [];
  let at = 0;
  [...spans]
    .sort((a, b) => a[0] - b[0])
    .forEach(([s, e], i) => {
      if (s < at || e <= s) return;
      if (s > at) out.push(text.slice(at, s));
      out.push(<mark key={i}>{text.slice(s, e)}</mark>);
      at = e;
    });
  if (at < text.length) out.push(text.slice(at));
  return <>{out}</>;
}

/** Until the room's server search answers (GET …/search), the messages already loaded are searched here. */
function localSearch(messages: Message[], q: string, plates: Map<string, string>): SearchResult[] {
  const needle = q.toLowerCase();
  const out: SearchResult[] = [];
  for (let i = messages.length - 1; i >= 0 && out.length < 50; i--) {
    const m = messages[i]!;
    const body = dePlate(m.body, plates);
    const lower = body.toLowerCase();
    const first = lower.indexOf(needle);
    if (first < 0) continue;
    const from = Math.max(0, first - 60);
    const snippet = body.slice(from, from + 200);
    const highlights: Array<[number, number]> = [];
    for (let at = snippet.toLowerCase().indexOf(needle); at >= 0; at = snippet.toLowerCase().indexOf(needle, at + needle.length)) highlights.push([at, at + needle.length]);
    out.push({ kind: 'message', id: m.message_id, room: m.room, snippet, highlights, rank: 0, created_at: m.created_at, seq: m.seq });
  }
  return out;
}

let serverSearch: 'unknown' | 'yes' | 'no' = 'unknown';

function SearchBox({ roomId, messages, plates, onPick }: { roomId: string; messages: Message[]; plates: Map<string, string>; onPick: (r: SearchResult) => void }) {
  const [q, setQ] = useState('');
  const [results, setResults] = useState<SearchResult[] | null>(null);
  const [local, setLocal] = useState(false);
  useEffect(() => {
    const query = q.trim();
    if (query.length < 2) return setResults(null);
    let live = true;
    const t = setTimeout(async () => {
      if (serverSearch !== 'no') {
        const r = await client.search.room({ params: { id: roomId }, query: { q: query, kinds: 'message', limit: 30 } });
        if (r.ok) {
          serverSearch = 'yes';
          if (live) {
            setLocal(false);
            setResults(r.data.results);
          }
          return;
        }
        if (r.status === 404 || r.status === 405) serverSearch = 'no';
      }
      if (live) {
        setLocal(true);
        setResults(localSearch(messages, query, plates));
      }
    }, 200);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [q, roomId, messages, plates]);
  return (
    <div className="search">
      <input type="search" aria-label="Search messages" placeholder="Search messages" value={q} onChange={(e) => setQ(e.target.value)} onKeyDown={(e) => e.key === 'Escape' && setQ('')} />
      {results && (
        <div className="search-results" role="region" aria-label="Search results">
          <p className="muted">
            {results.length} {results.length === 1 ? 'result' : 'results'}
            {local ? ' in the loaded messages' : ''}
          </p>
          <ul className="plain">
            {results.map((r) => (
              <li key={r.id}>
                <button
                  type="button"
                  className="result"
                  onClick={() => {
                    onPick(r);
                    setQ('');
                  }}
                >
                  <Highlighted text={r.snippet} spans={r.highlights} /> <time className="muted">{time(r.created_at)}</time>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

export function ChatView({ room, focusSeq }: { room: Room; focusSeq?: number }) {
  const roomId = room.room_id;
  const mw = useMessageWakes((s) => s.rooms[roomId]?.data);
  useEffect(() => {
    void useMessageWakes.getState().load(roomId);
    // A wake's end may be announced to its owners rather than the room: any wake event reloads (coalesced).
    let t: ReturnType<typeof setTimeout> | undefined;
    const off = onLiveEvent((type) => {
      if (type !== 'wakes.changed' || t) return;
      t = setTimeout(() => {
        t = undefined;
        void useMessageWakes.getState().load(roomId);
      }, 300);
    });
    return () => {
      off();
      if (t) clearTimeout(t);
    };
  }, [roomId]);
  const [highlightSeq, setHighlightSeq] = useState<number | undefined>();
  const chat = useChat((s) => s.rooms[roomId]);
  const log = chat?.data;
  const { loadLatest, loadOlder, send } = useChat.getState();
  const meId = useSession((s) => s.me?.owner_id);
  const [threadId, setThreadId] = useState<string | null>(null);
  const [reveal, setReveal] = useState<{ key: string; align: 'start' } | undefined>();
  // What was unread when the room opened: the "New" line and the jump stay until the room is left.
  const lastReadAtOpen = useRef<number | null>(null);
  if (lastReadAtOpen.current === null) {
    const a = useAttention.getState().rooms[roomId];
    lastReadAtOpen.current = a && a.unread > 0 ? a.lastRead : Number.MAX_SAFE_INTEGER;
  }
  useEffect(() => {
    void loadLatest(roomId);
  }, [roomId, loadLatest]);

  const messages = useMemo(() => log?.messages ?? [], [log?.messages]);
  // The statuses are asked for the latest messages that mention agents: asked again when those change.
  const askedIds = useMemo(() => deliveryIds(messages).join(','), [messages]);
  useEffect(() => {
    if (askedIds) void useMessageWakes.getState().load(roomId);
  }, [roomId, askedIds]);
  const last = messages[messages.length - 1];
  useEffect(() => {
    const att = useAttention.getState();
    att.setViewing(roomId);
    const read = () => {
      const l = useChat.getState().rooms[roomId]?.data?.messages.at(-1);
      if (l && document.visibilityState === 'visible') useAttention.getState().markRead(roomId, l.seq);
    };
    document.addEventListener('visibilitychange', read);
    return () => {
      document.removeEventListener('visibilitychange', read);
      useAttention.getState().setViewing(null);
    };
  }, [roomId]);
  useEffect(() => {
    if (last && document.visibilityState === 'visible') useAttention.getState().markRead(roomId, last.seq);
  }, [roomId, last]);

  const byId = useMemo(() => new Map(messages.map((m) => [m.message_id, m])), [messages]);
  // A link to one message (#/rooms/:id/messages/:seq): shown highlighted, loaded around it when not loaded.
  const [focusNote, setFocusNote] = useState<string>();
  useEffect(() => {
    if (focusSeq === undefined) return;
    let live = true;
    const show = () => {
      const held = useChat.getState().rooms[roomId]?.data?.messages ?? [];
      const m = held.find((x) => x.seq === focusSeq);
      if (!m) return false;
      setHighlightSeq(focusSeq);
      const all = new Set(held.map((x) => x.message_id));
      if (m.parent_id && all.has(m.parent_id)) setThreadId(m.parent_id);
      else setReveal({ key: m.message_id, align: 'start' });
      return true;
    };
    if (!show()) {
      void useChat
        .getState()
        .loadAround(roomId, focusSeq)
        .then((found) => {
          if (!live) return;
          if (found) requestAnimationFrame(() => live && show());
          else setFocusNote('That message is not in this room (or no longer exists).');
        });
    }
    return () => {
      live = false;
    };
  }, [roomId, focusSeq]);
  const replyCount = useMemo(() => {
    const c = new Map<string, number>();
    for (const m of messages) if (m.parent_id) c.set(m.parent_id, (c.get(m.parent_id) ?? 0) + 1);
    return c;
  }, [messages]);
  const recent = useMemo(() => (messages.length < 2000 ? messages : messages.slice(-2000)), [messages]);
  const plates = usePlateHandles(roomId, recent);
  const candidates = useCandidates(roomId);
  const rows = useMemo<Row[]>(() => {
    const out: Row[] = [];
    if (log && !log.hasMore && messages.length) out.push({ kind: 'start', key: '__start__' });
    let prev: Message | undefined;
    for (const m of messages) {
      // Replies live in their thread; one whose root is not loaded stays in the main list.
      if (m.parent_id && byId.has(m.parent_id)) continue;
      out.push({ kind: 'msg', key: m.message_id, m, prev, orphan: !!m.parent_id });
      prev = m;
    }
    return out;
  }, [messages, byId, log]);
  const firstUnread = useMemo(
    () => messages.find((m) => m.seq > lastReadAtOpen.current! && !(m.sender.kind === 'human' && m.sender.owner_id === meId)),
    [messages, meId],
  );
  const firstUnreadRow = firstUnread ? (firstUnread.parent_id && byId.has(firstUnread.parent_id) ? firstUnread.parent_id : firstUnread.message_id) : undefined;
  const onReachTop = useCallback(() => void loadOlder(roomId), [roomId, loadOlder]);
  // Stable, so a row whose props did not change is not rendered again (MessageRow is memo).
  const openThread = useCallback((m: Message) => setThreadId(m.message_id), []);
  const itemKey = useCallback((r: Row) => r.key, []);
  const render = useCallback(
    (r: Row) =>
      r.kind === 'start' ? (
        <p className="history-start">This is the start of “{room.name}”.</p>
      ) : (
        <MessageRow
          m={r.m}
          replies={replyCount.get(r.m.message_id) ?? 0}
          meId={meId}
          plates={plates}
          compact={continues(r.prev, r.m) && r.m.message_id !== firstUnreadRow}
          firstUnread={r.m.message_id === firstUnreadRow}
          orphan={r.orphan}
          onThread={openThread}
          highlight={r.m.seq === highlightSeq}
          wakes={mw?.byMessage.get(r.m.message_id)}
        />
      ),
    [replyCount, meId, plates, room.name, firstUnreadRow, highlightSeq, mw, openThread],
  );

  if (!log) return phaseOf(chat) === 'error' ? <ErrorNote error={chat?.error} what="messages" retry={() => void loadLatest(roomId)} /> : <Loading what="messages" />;

  const thread = threadId ? byId.get(threadId) : undefined;
  const threadMsgs = thread ? [thread, ...messages.filter((m) => m.parent_id === thread.message_id)] : [];
  const pick = (r: SearchResult) => {
    const m = byId.get(r.id);
    // Not loaded: go to its link, which loads the messages around it.
    if (!m) return r.seq !== undefined ? navigate('rooms', roomId, 'messages', String(r.seq)) : undefined;
    if (m.parent_id && byId.has(m.parent_id)) setThreadId(m.parent_id);
    else setReveal({ key: m.message_id, align: 'start' });
  };
  return (
    <div className={`chat ${thread ? 'with-thread' : ''}`}>
      <section className="chat-main" aria-label="Chat history">
        <div className="history-bar">
          {log.hasMore && (
            <button type="button" onClick={onReachTop} disabled={log.loadingOlder}>
              {log.loadingOlder ? 'Loading older messages…' : 'Load older messages'}
            </button>
          )}
          {firstUnreadRow && (
            <button type="button" className="jump" onClick={() => setReveal({ key: firstUnreadRow, align: 'start' })}>
              Jump to first unread
            </button>
          )}
          {log.detached && (
            <button type="button" className="jump" onClick={() => void useChat.getState().jumpToLatest(roomId).then(() => navigate('rooms', roomId))}>
              Jump to latest messages{log.liveCount > 0 ? ` (${log.liveCount} new)` : ''}
            </button>
          )}
          {focusNote && (
            <span role="status" className="muted">
              {focusNote}
            </span>
          )}
          <SearchBox roomId={roomId} messages={messages} plates={plates} onPick={pick} />
          <span className="muted loaded" data-testid="loaded-count">
            {messages.length} loaded
          </span>
        </div>
        <VirtualList
          items={rows}
          itemKey={itemKey}
          estimate={64}
          render={render}
          stickToBottom
          onReachTop={log.hasMore ? onReachTop : undefined}
          ariaLabel="Messages"
          role="log"
          className="history"
          testId="history"
          reveal={reveal}
          empty={<Empty>No messages yet. Say hello, or @mention an agent to wake it.</Empty>}
        />
        <div className="sr-only" aria-live="polite" aria-atomic="true">
          {log.liveCount > 0 && last ? `New message from ${last.sender.handle}: ${dePlate(last.body, plates).slice(0, 140)}` : ''}
        </div>
        <Composer label="Message the room" draftKey={`${meId ?? ''}:${roomId}`} candidates={candidates} onSend={async (body, targets) => send(roomId, body, targets)} />
      </section>
      {thread && (
        <aside className="thread" aria-label="Thread">
          <header className="row">
            <h2>Thread</h2>
            <button type="button" className="ghost" onClick={() => setThreadId(null)} aria-label="Close thread">
              ×
            </button>
          </header>
          <div className="thread-list">
            {threadMsgs.map((m) => (
              <MessageRow key={m.message_id} m={m} replies={0} meId={meId} plates={plates} highlight={m.seq === highlightSeq} wakes={mw?.byMessage.get(m.message_id)} />
            ))}
          </div>
          <Composer
            label="Reply in thread"
            key={thread.message_id}
            draftKey={`${meId ?? ''}:${roomId}:${thread.message_id}`}
            placeholder="Reply in thread; @ to mention"
            candidates={candidates}
            onSend={async (body, targets) => send(roomId, body, targets, thread.message_id)}
          />
        </aside>
      )}
    </div>
  );
}
