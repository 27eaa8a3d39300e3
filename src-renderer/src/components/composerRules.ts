/** Is the caret inside an open ``` (or ~~~) code fence: an odd number of fence lines before it? */
export function insideFence(text: string, caret: number): boolean {
  let n = 0;
  for (const line of text.slice(0, caret).split('\n')) if (/^\s*(```|~~~)/.test(line)) n++;
  return n % 2 === 1;
}

/** What stays in the composer once `sent` went out: anything typed after it while it was on its way. */
export function afterSend(current: string, sent: string): string {
  if (current === sent) return '';
  return current.startsWith(sent) ? current.slice(sent.length).replace(/^\s+/, '') : current;
}

/** Someone the composer can mention: a room agent (`@name(owner)`), a live instance (`…#id`) or a human (`@name`). */
export interface MentionCandidate {
  handle: string;
  kind: 'agent' | 'human' | 'instance';
}

/** One `@…` typed in the text: where it is and every room member it could mean. */
export interface TypedMention {
  /** As typed, e.g. `@reviewer` or `@reviewer(alice)`. */
  text: string;
  start: number;
  end: number;
  /** The handles it matches: one is a mention, none or several is marked before sending. */
  matches: string[];
}

// `@` at the start or after a space or an opening bracket/quote (not inside an e-mail address or a word).
const TYPED_RE = /(^|[\s([{"'>])(@[a-z0-9][a-z0-9-]*(?:\([a-z0-9-]+\))?(?:#[A-Za-z0-9]+)?)(?![a-z0-9-]|\()/gi;

/** The ranges of code (``` fences and `inline code`) where an `@` is not a mention. */
function codeRanges(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const fence = /^[ \t]*(```|~~~)[^\n]*\n[\s\S]*?(?:^[ \t]*\1[^\n]*$|(?![\s\S]))/gm;
  for (const m of text.matchAll(fence)) out.push([m.index, m.index + m[0].length]);
  const inline = /`[^`\n]+`/g;
  for (const m of text.matchAll(inline)) if (!out.some(([a, b]) => m.index >= a && m.index < b)) out.push([m.index, m.index + m[0].length]);
  return out;
}

/** The name part of a handle: `@reviewer(alice)` → `reviewer`, `@bob` → `bob`. */
const namePart = (handle: string) => handle.slice(1).replace(/[(#].*$/, '').toLowerCase();

/**
 * Every `@…` typed in the text (outside code) and the room members it matches (docs/ui.md
 * "Typed mentions"): a whole handle (`@reviewer(alice)`, `@bob`, `@reviewer(alice)#a1b2`) is
 * that member; a bare `@reviewer` is every room agent named reviewer, whoever its owner. Case
 * does not matter. The window resolves them; the server never scans bodies.
 */
export function typedMentions(text: string, candidates: readonly MentionCandidate[]): TypedMention[] {
  const byHandle = new Map(candidates.map((c) => [c.handle.toLowerCase(), c.handle]));
  const agentsByName = new Map<string, string[]>();
  for (const c of candidates) {
    if (c.kind !== 'agent') continue;
    const n = namePart(c.handle);
    agentsByName.set(n, [...(agentsByName.get(n) ?? []), c.handle]);
  }
  const code = text.includes('`') || text.includes('~~~') ? codeRanges(text) : [];
  const out: TypedMention[] = [];
  for (const m of text.matchAll(TYPED_RE)) {
    const start = m.index + m[1]!.length;
    if (code.some(([a, b]) => start >= a && start < b)) continue;
    const typed = m[2]!;
    const exact = byHandle.get(typed.toLowerCase());
    const matches = exact ? [exact] : typed.includes('(') || typed.includes('#') ? [] : (agentsByName.get(namePart(typed)) ?? []);
    out.push({ text: typed, start, end: start + typed.length, matches });
  }
  return out;
}

/** The structured mention targets of a text: each typed `@…` that matches exactly one member, once. */
export function resolvedTargets(mentions: readonly TypedMention[]): string[] {
  return [...new Set(mentions.filter((m) => m.matches.length === 1).map((m) => m.matches[0]!))];
}

/** The typed `@…` that match no one or several members: marked before sending, and sending asks. */
export function unresolved(mentions: readonly TypedMention[]): TypedMention[] {
  const seen = new Set<string>();
  return mentions.filter((m) => m.matches.length !== 1 && !seen.has(m.text.toLowerCase()) && seen.add(m.text.toLowerCase()));
}

/** One sentence per unresolved mention, as the composer marks it. */
export function unresolvedText(m: TypedMention): string {
  return m.matches.length === 0 ? `${m.text} matches no one in this room` : `${m.text} could be ${m.matches.join(' or ')}: type the whole handle`;
}
