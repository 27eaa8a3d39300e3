import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { flushSync } from 'react-dom';
import { describeError } from '../api';
import { afterSend, insideFence, resolvedTargets, typedMentions, unresolved, unresolvedText, type TypedMention } from './composerRules';
import { Dialog } from './Dialog';

export interface Candidate {
  handle: string;
  label: string;
  kind: 'agent' | 'human' | 'instance';
}

/** The structured mention targets of a text: each typed @… that matches exactly one room member (composerRules.ts). */
export function mentionTargets(text: string, candidates: Candidate[]): string[] {
  return resolvedTargets(typedMentions(text, candidates));
}

const DRAFT_PREFIX = 'ar.draft.';
function readDraft(key: string | undefined): string {
  if (!key) return '';
  try {
    return localStorage.getItem(DRAFT_PREFIX + key) ?? '';
  } catch {
    return '';
  }
}
function writeDraft(key: string, text: string): void {
  try {
    if (text) localStorage.setItem(DRAFT_PREFIX + key, text);
    else localStorage.removeItem(DRAFT_PREFIX + key);
  } catch {
    // storage full or refused: the draft stays in the box
  }
}

/**
 * A message composer: typing @ opens a list of handles (arrows, Enter or Tab to pick,
 * Escape to dismiss); Enter sends, Shift+Enter (or Enter inside a ``` code fence) is a new
 * line. Nothing typed is lost: the box stays editable while a message is sent (only what was
 * sent is taken out), and with `draftKey` the draft is kept in localStorage across room
 * switches and reloads.
 */
export function Composer({
  candidates,
  onSend,
  label,
  placeholder,
  draftKey,
}: {
  draftKey?: string;
  candidates: Candidate[];
  onSend: (body: string, targets: string[]) => Promise<{ ok: true } | { ok: false; error: Parameters<typeof describeError>[0] }>;
  label: string;
  placeholder?: string;
}) {
  const [text, setText] = useState(() => readDraft(draftKey));
  // The draft is written shortly after typing stops, and at once when the composer goes away.
  const latest = useRef(text);
  latest.current = text;
  useEffect(() => {
    if (!draftKey) return;
    const t = setTimeout(() => writeDraft(draftKey, text), 250);
    return () => clearTimeout(t);
  }, [draftKey, text]);
  useEffect(() => {
    if (!draftKey) return;
    return () => writeDraft(draftKey, latest.current);
  }, [draftKey]);
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState(false);
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string>();
  const ref = useRef<HTMLTextAreaElement>(null);
  const id = useId();
  // Typed @… that match no one or several members: marked as they stand, and sending asks first.
  const typed = useMemo(() => typedMentions(text, candidates), [text, candidates]);
  const doubtful = useMemo(() => unresolved(typed), [typed]);
  // The one being typed at the caret is not marked yet (the suggestions are open for it).
  const typingAt = typed.find((t) => t.end === caret);
  const marked = doubtful.filter((m) => !typingAt || typingAt.text.toLowerCase() !== m.text.toLowerCase() || typed.filter((t) => t.text.toLowerCase() === m.text.toLowerCase()).length > 1);
  const [asking, setAsking] = useState<TypedMention[] | null>(null);

  const query = useMemo(() => {
    const before = text.slice(0, caret);
    const m = /(^|\s)@([a-z0-9\-()#]*)$/i.exec(before);
    return m ? { start: before.length - m[2]!.length - 1, q: m[2]!.toLowerCase() } : null;
  }, [text, caret]);
  const matches = useMemo(
    () => (query ? candidates.filter((c) => c.handle.slice(1).toLowerCase().startsWith(query.q) || c.label.toLowerCase().includes(query.q)).slice(0, 8) : []),
    [query, candidates],
  );
  const open = !!query && !dismissed && matches.length > 0;

  function pick(c: Candidate) {
    if (!query) return;
    const next = text.slice(0, query.start) + c.handle + ' ' + text.slice(caret);
    const pos = query.start + c.handle.length + 1;
    // Committed now and the caret placed at once: placed in a later frame, it could land after the
    // next keys were typed and move them to the middle of the text.
    flushSync(() => {
      setText(next);
      setCaret(pos);
      setActive(0);
    });
    ref.current?.focus();
    ref.current?.setSelectionRange(pos, pos);
  }

  async function send(asked = false) {
    const raw = text;
    const body = raw.trim();
    if (!body || busy) return;
    const mentions = typedMentions(body, candidates);
    const unsure = unresolved(mentions);
    if (unsure.length && !asked) return setAsking(unsure);
    setAsking(null);
    setBusy(true);
    const r = await onSend(body, resolvedTargets(mentions));
    if (r.ok) {
      // What was typed while sending stays: only the sent text is taken out, from what the box holds
      // now, and at once. Set in React's next render instead, a key typed before that render would
      // hand React the box's value with the sent text still in it, and bring it back.
      const rest = afterSend(ref.current?.value ?? latest.current, raw);
      flushSync(() => {
        setBusy(false);
        setText(rest);
        setCaret(rest.length);
        setErr(undefined);
      });
      if (draftKey) writeDraft(draftKey, rest);
    } else {
      setBusy(false);
      setErr(describeError(r.error));
    }
  }

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (open) {
      if (e.key === 'ArrowDown') {
        e.preventDefault();
        setActive((a) => (a + 1) % matches.length);
        return;
      }
      if (e.key === 'ArrowUp') {
        e.preventDefault();
        setActive((a) => (a - 1 + matches.length) % matches.length);
        return;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        pick(matches[Math.min(active, matches.length - 1)]!);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        setDismissed(true);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      // Inside a code fence Enter is a new line: a fenced block is written line by line.
      if (insideFence(text, e.currentTarget.selectionStart)) return;
      e.preventDefault();
      void send();
    }
  }

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <label htmlFor={`${id}-text`} className="sr-only">
        {label}
      </label>
      <div className="composer-box">
        <textarea
          aria-describedby={marked.length ? `${id}-marks` : undefined}
          aria-invalid={marked.length ? true : undefined}
          id={`${id}-text`}
          ref={ref}
          value={text}
          rows={2}
          placeholder={placeholder ?? 'Write a message; @ to mention'}
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={`${id}-list`}
          aria-activedescendant={open ? `${id}-opt-${active}` : undefined}
          onChange={(e) => {
            setText(e.target.value);
            setCaret(e.target.selectionStart);
            setDismissed(false);
            setActive(0);
          }}
          onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
          onKeyDown={onKeyDown}
          maxLength={65536}
        />
        <ul id={`${id}-list`} role="listbox" className="autocomplete" hidden={!open} aria-label="Mention suggestions">
          {open &&
            matches.map((c, i) => (
              <li
                key={c.handle}
                id={`${id}-opt-${i}`}
                role="option"
                aria-selected={i === active}
                className={i === active ? 'active' : ''}
                onMouseDown={(e) => {
                  e.preventDefault();
                  pick(c);
                }}
              >
                <strong>{c.handle}</strong> <span className="muted">{c.label}</span>
              </li>
            ))}
        </ul>
        <button type="submit" disabled={busy || !text.trim()}>
          Send
        </button>
      </div>
      {marked.length > 0 && (
        <ul id={`${id}-marks`} className="mention-marks plain" aria-label="Mentions that match no one or several">
          {marked.map((m) => (
            <li key={m.text.toLowerCase()}>
              {unresolvedText(m)}
            </li>
          ))}
        </ul>
      )}
      {err && (
        <p role="alert" className="error-text">
          {err}
        </p>
      )}
      {asking && (
        <Dialog title={asking.length === 1 ? 'A mention matches no one' : 'Some mentions match no one'} onClose={() => setAsking(null)}>
          <ul>
            {asking.map((m) => (
              <li key={m.text.toLowerCase()}>{unresolvedText(m)}.</li>
            ))}
          </ul>
          <p>Sent as it is, {asking.length === 1 ? 'it is' : 'they are'} plain text: nobody is notified or woken by {asking.length === 1 ? 'it' : 'them'}.</p>
          <div className="row end">
            <button
              type="button"
              className="ghost"
              onClick={() => {
                const first = asking[0]!;
                setAsking(null);
                // Back to the text with the first doubtful mention selected, to fix it.
                requestAnimationFrame(() => {
                  const at = text.toLowerCase().indexOf(first.text.toLowerCase());
                  ref.current?.focus();
                  if (at >= 0) ref.current?.setSelectionRange(at, at + first.text.length);
                });
              }}
            >
              Fix it
            </button>
            <button type="button" onClick={() => void send(true)}>
              Send as plain text
            </button>
          </div>
        </Dialog>
      )}
    </form>
  );
}
