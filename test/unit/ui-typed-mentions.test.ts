// Typed mentions (src-renderer/src/components/composerRules.ts, docs/ui.md "Typed mentions"): a
// typed @name or @name(owner) that matches exactly one room member becomes a structured mention
// target; one that matches none or several is marked and sending asks.
import { describe, it, expect } from 'vitest';
import { resolvedTargets, typedMentions, unresolved, unresolvedText, type MentionCandidate } from '../../src-renderer/src/components/composerRules.js';

const room: MentionCandidate[] = [
  { handle: '@reviewer(alice)', kind: 'agent' },
  { handle: '@builder(alice)', kind: 'agent' },
  { handle: '@builder(bob)', kind: 'agent' },
  { handle: '@builder(alice)#a1b2', kind: 'instance' },
  { handle: '@alice', kind: 'human' },
];

const targets = (text: string) => resolvedTargets(typedMentions(text, room));
const marked = (text: string) => unresolved(typedMentions(text, room)).map((m) => m.text);

describe('typed mentions', () => {
  it('a bare @name that one room agent has is that agent, whatever the case', () => {
    expect(targets('@reviewer please look')).toEqual(['@reviewer(alice)']);
    expect(targets('hey @Reviewer, look')).toEqual(['@reviewer(alice)']);
    expect(marked('@reviewer please look')).toEqual([]);
  });

  it('a whole handle is that member: an agent with its owner, a human, a live instance', () => {
    expect(targets('@builder(bob) and @alice and @builder(alice)#a1b2')).toEqual(['@builder(bob)', '@alice', '@builder(alice)#a1b2']);
  });

  it('a name two agents share is marked with both, and is no target', () => {
    const [m] = unresolved(typedMentions('@builder go', room));
    expect(m!.matches).toEqual(['@builder(alice)', '@builder(bob)']);
    expect(unresolvedText(m!)).toBe('@builder could be @builder(alice) or @builder(bob): type the whole handle');
    expect(targets('@builder go')).toEqual([]);
  });

  it('a name nobody has is marked, once however often it is typed', () => {
    expect(marked('@nobody and again @nobody, and @reviewer(bob)')).toEqual(['@nobody', '@reviewer(bob)']);
    expect(unresolvedText(unresolved(typedMentions('@nobody', room))[0]!)).toBe('@nobody matches no one in this room');
    expect(targets('@nobody')).toEqual([]);
  });

  it('an e-mail address, code and a word with @ inside are not mentions', () => {
    expect(typedMentions('mail alice@example.com', room)).toEqual([]);
    expect(typedMentions('run `@reviewer` in code', room)).toEqual([]);
    expect(typedMentions('```\n@decorator\n@reviewer\n```\nafter', room)).toEqual([]);
    expect(targets('```ts\n@nobody\n```\n@reviewer')).toEqual(['@reviewer(alice)']);
  });

  it('each target once, with where it was typed', () => {
    const ms = typedMentions('(@reviewer) @reviewer.', room);
    expect(ms.map((m) => [m.start, m.end])).toEqual([
      [1, 10],
      [12, 21],
    ]);
    expect(resolvedTargets(ms)).toEqual(['@reviewer(alice)']);
  });
});
