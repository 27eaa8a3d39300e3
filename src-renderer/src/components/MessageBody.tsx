import { useMemo, type MouseEvent } from 'react';
import type { Mention } from '../types';
import { renderMarkdown } from './markdown';

const PLATE_RE = /\b[A-Z]{2,6}-AGT-[0-9A-Z]{6}\b/g;

/** Copies a code block's text when its button is pressed (one listener for every block of a message). */
function onCodeCopy(e: MouseEvent<HTMLDivElement>) {
  const btn = (e.target as HTMLElement).closest<HTMLButtonElement>('button.copy-code');
  if (!btn) return;
  const code = btn.parentElement?.querySelector('pre')?.textContent ?? '';
  void navigator.clipboard?.writeText(code).then(
    () => {
      btn.textContent = 'Copied';
      setTimeout(() => (btn.textContent = 'Copy'), 1500);
    },
    () => {
      btn.textContent = 'Copy failed';
    },
  );
}

/**
 * A message body as Markdown (markdown.ts: no raw HTML, checked links), with its structured
 * mentions highlighted (the signed-in owner's strongly) and any raw plate an agent typed
 * replaced by that agent's handle.
 */
export function MessageBody({ body, mentions, meId, plates }: { body: string; mentions: Mention[]; meId?: string; plates: Map<string, string> }) {
  const handles = useMemo(() => [...new Set(mentions.map((m) => m.handle))].sort((a, b) => b.length - a.length), [mentions]);
  const mine = useMemo(() => new Set(mentions.filter((m) => m.kind === 'human' && m.owner_id === meId).map((m) => m.handle.toLowerCase())), [mentions, meId]);
  const text = dePlate(body, plates);
  const html = useMemo(() => renderMarkdown(text, { handles, mine }), [text, handles, mine]);
  // Structured mentions the body does not spell out are still shown, as addressed-to chips.
  const lower = text.toLowerCase();
  const unspoken = handles.filter((h) => !lower.includes(h.toLowerCase()));
  return (
    <>
      {/* The HTML is markdown-it's output with html: false: every character of the message is escaped. */}
      <div className="body md" onClick={onCodeCopy} dangerouslySetInnerHTML={{ __html: html }} />
      {unspoken.length > 0 && (
        <div className="addressed">
          to{' '}
          {unspoken.map((h) => (
            <mark key={h} className={`mention ${mine.has(h.toLowerCase()) ? 'me' : ''}`}>
              {h}
            </mark>
          ))}
        </div>
      )}
    </>
  );
}

/** Replaces raw plates in plain text (titles, notes) by handles. */
export function dePlate(text: string, plates: Map<string, string>): string {
  return text.replace(PLATE_RE, (p) => plates.get(p) ?? '@agent');
}
