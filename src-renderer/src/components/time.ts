/**
 * One formatter for the whole window: `toLocaleString` with options builds a new Intl.DateTimeFormat on
 * every call (about a millisecond each), which made each chat row's render cost more than the rest of it
 * (docs/ui.md, "Long history").
 */
let moment: Intl.DateTimeFormat | undefined;

/** One way to write a moment everywhere (chat, wake log, task detail): "Nov 23, 14:05". */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  // What toLocaleString writes for a date that does not parse (format would throw).
  if (Number.isNaN(d.getTime())) return 'Invalid Date';
  moment ??= new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', month: 'short', day: 'numeric' });
  return moment.format(d);
}
