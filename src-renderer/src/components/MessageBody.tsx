import type { ReactNode } from 'react';
import type { Mention } from '../types';

const PLATE_RE = /\b[A-Z]{2,6}-AGT-[0-9A-Z]{6}\b/g;

/**
 * A message body as text, with its structured mentions highlighted (the signed-in owner's
 * strongly) and any raw plate an agent typed replaced by that agent's handle.
 */
export function MessageBody({ body, mentions, meId, plates }: { body: string; mentions: Mention[]; meId?: string; plates: Map<string, string> }) {
  const handles = [...new Set(mentions.map((m) => m.handle))].sort((a, b) => b.length - a.length);
  const mine = new Set(mentions.filter((m) => m.kind === 'human' && m.owner_id === meId).map((m) => m.handle.toLowerCase()));
  const parts: ReactNode[] = [];
  const escaped = handles.map((h) => h.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const re = new RegExp([...escaped.map((h) => `${h}(?:#[A-Za-z0-9]+)?`), PLATE_RE.source].join('|'), escaped.length ? 'gi' : 'g');
  let last = 0;
  let m: RegExpExecArray | null;
  let n = 0;
  while ((m = re.exec(body))) {
    if (m.index > last) parts.push(body.slice(last, m.index));
    const tok = m[0];
    if (/^[A-Z]{2,6}-AGT-/.test(tok)) {
      parts.push(
        <span key={n++} className="mention">
          {plates.get(tok) ?? '@agent'}
        </span>,
      );
    } else {
      const base = tok.replace(/#.*$/, '').toLowerCase();
      parts.push(
        <mark key={n++} className={`mention ${mine.has(base) ? 'me' : ''}`}>
          {tok}
        </mark>,
      );
    }
    last = m.index + tok.length;
  }
  if (last < body.length) parts.push(body.slice(last));
  // Structured mentions the body does not spell out are still shown, as addressed-to chips.
  const lower = body.toLowerCase();
  const unspoken = handles.filter((h) => !lower.includes(h.toLowerCase()));
  return (
    <>
      <div className="body">{parts}</div>
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
