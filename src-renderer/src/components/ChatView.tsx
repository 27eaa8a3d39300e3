import { memo, useCallback, useEffect, useMemo, useState } from 'react';
import { useChat } from '../stores/chat';
import { useRooms } from '../stores/rooms';
import { useSession } from '../stores/session';
import type { Message, Room } from '../types';
import { VirtualList } from './VirtualList';
import { Loading, ErrorNote, Empty } from './States';
import { Composer, type Candidate } from './Composer';
import { MessageBody, dePlate } from './MessageBody';

function time(iso: string) {
  const d = new Date(iso);
  return d.toLocaleString(undefined, { hour: '2-digit', minute: '2-digit', month: 'short', day: 'numeric' });
}

export function usePlateHandles(roomId: string, extra: Message[] = []): Map<string, string> {
  const members = useRooms((s) => s.members[roomId]?.data);
  return useMemo(() => {
    const m = new Map<string, string>();
    for (const msg of extra) {
      if (msg.sender.plate) m.set(msg.sender.plate, msg.sender.handle);
      for (const x of msg.mentions) if (x.plate) m.set(x.plate, x.handle);
    }
    for (const a of members?.agents ?? []) m.set(a.plate, a.handle);
    return m;
  }, [members, extra]);
}

export function useCandidates(roomId: string): Candidate[] {
  const members = useRooms((s) => s.members[roomId]?.data);
  return useMemo(() => {
    if (!members) return [];
    return [
      ...members.agents.filter((a) => !a.revoked).map((a) => ({ handle: a.handle, label: `${a.name} (agent of ${a.owner.name})`, kind: 'agent' as const })),
      ...members.instances.map((i) => ({ handle: i.handle, label: `live instance on ${i.host}`, kind: 'instance' as const })),
      ...members.humans.map((h) => ({ handle: h.handle, label: `${h.name} (human)`, kind: 'human' as const })),
    ];
  }, [members]);
}

const MessageRow = memo(function MessageRow({
  m,
  parent,
  replies,
  meId,
  plates,
  onThread,
}: {
  m: Message;
  parent?: Message;
  replies: number;
  meId?: string;
  plates: Map<string, string>;
  onThread: (root: Message) => void;
}) {
  const mentionsMe = m.mentions.some((x) => x.kind === 'human' && x.owner_id === meId);
  return (
    <article className={`msg ${mentionsMe ? 'mentions-me' : ''} ${m.sender.owner_id === meId && m.sender.kind === 'human' ? 'mine' : ''}`} aria-label={`Message ${m.seq} from ${m.sender.handle}`} data-seq={m.seq}>
      <header>
        <strong className="sender">{m.sender.name}</strong> <span className="handle">{m.sender.handle}</span>
        {m.sender.kind === 'agent' && <span className="badge">agent</span>}
        <time dateTime={m.created_at}>{time(m.created_at)}</time>
        {mentionsMe && <span className="badge me">mentions you</span>}
      </header>
      {m.parent_id && (
        <p className="reply-to">
          ↳ reply to {parent ? <>{parent.sender.handle}: “{dePlate(parent.body, plates).slice(0, 80)}”</> : 'an earlier message'}
        </p>
      )}
      <MessageBody body={m.body} mentions={m.mentions} meId={meId} plates={plates} />
      <footer>
        <button type="button" className="link" onClick={() => onThread(parent && m.parent_id ? parent : m)}>
          {replies ? `Thread (${replies} ${replies === 1 ? 'reply' : 'replies'})` : 'Reply in thread'}
        </button>
      </footer>
    </article>
  );
});

export function ChatView({ room }: { room: Room }) {
  const roomId = room.room_id;
  const chat = useChat((s) => s.rooms[roomId]);
  const { loadLatest, loadOlder, send } = useChat.getState();
  const meId = useSession((s) => s.me?.owner_id);
  const [thread, setThread] = useState<Message | null>(null);
  useEffect(() => {
    void loadLatest(roomId);
  }, [roomId, loadLatest]);

  const messages = useMemo(() => chat?.messages ?? [], [chat?.messages]);
  const byId = useMemo(() => new Map(messages.map((m) => [m.message_id, m])), [messages]);
  const replyCount = useMemo(() => {
    const c = new Map<string, number>();
    for (const m of messages) if (m.parent_id) c.set(m.parent_id, (c.get(m.parent_id) ?? 0) + 1);
    return c;
  }, [messages]);
  const plates = usePlateHandles(roomId, messages.length < 2000 ? messages : messages.slice(-2000));
  const candidates = useCandidates(roomId);
  const last = messages[messages.length - 1];
  const onReachTop = useCallback(() => void loadOlder(roomId), [roomId, loadOlder]);
  const itemKey = useCallback((m: Message) => m.message_id, []);
  const render = useCallback(
    (m: Message) => <MessageRow m={m} parent={m.parent_id ? byId.get(m.parent_id) : undefined} replies={replyCount.get(m.message_id) ?? 0} meId={meId} plates={plates} onThread={setThread} />,
    [byId, replyCount, meId, plates],
  );

  if (!chat || (chat.status === 'loading' && !messages.length)) return <Loading what="messages" />;
  if (chat.status === 'error') return <ErrorNote error={chat.error} what="messages" retry={() => void loadLatest(roomId)} />;

  const threadMsgs = thread ? [thread, ...messages.filter((m) => m.parent_id === thread.message_id)] : [];
  return (
    <div className={`chat ${thread ? 'with-thread' : ''}`}>
      <section className="chat-main" aria-label="Chat history">
        <div className="history-bar">
          {chat.hasMore ? (
            <button type="button" onClick={onReachTop} disabled={chat.loadingOlder}>
              {chat.loadingOlder ? 'Loading older messages…' : 'Load older messages'}
            </button>
          ) : (
            <span className="muted">{messages.length ? 'Start of the room’s history' : ''}</span>
          )}
          <span className="muted" data-testid="loaded-count">
            {messages.length} loaded
          </span>
        </div>
        <VirtualList
          items={messages}
          itemKey={itemKey}
          estimate={72}
          render={render}
          stickToBottom
          onReachTop={chat.hasMore ? onReachTop : undefined}
          ariaLabel="Messages"
          role="log"
          className="history"
          testId="history"
          empty={<Empty>No messages yet. Say hello, or @mention an agent to wake it.</Empty>}
        />
        <div className="sr-only" aria-live="polite" aria-atomic="true">
          {chat.liveCount > 0 && last ? `New message from ${last.sender.handle}: ${dePlate(last.body, plates).slice(0, 140)}` : ''}
        </div>
        <Composer label="Message the room" candidates={candidates} onSend={async (body, targets) => send(roomId, body, targets)} />
      </section>
      {thread && (
        <aside className="thread" aria-label="Thread">
          <header className="row">
            <h2>Thread</h2>
            <button type="button" className="ghost" onClick={() => setThread(null)} aria-label="Close thread">
              ×
            </button>
          </header>
          <div className="thread-list">
            {threadMsgs.map((m) => (
              <MessageRow key={m.message_id} m={m} replies={0} meId={meId} plates={plates} onThread={() => {}} />
            ))}
          </div>
          <Composer
            label="Reply in thread"
            placeholder="Reply in thread; @ to mention"
            candidates={candidates}
            onSend={async (body, targets) => send(roomId, body, targets, thread.message_id)}
          />
        </aside>
      )}
    </div>
  );
}
