import { describe, it, expect } from 'vitest';
import { renderMarkdown } from '../../src-renderer/src/components/markdown.js';
import { presenceOf } from '../../src-renderer/src/components/presenceRules.js';

const env = { handles: ['@builder(ada)', '@ada'], mine: new Set(['@ada']) };

describe('chat Markdown (markdown-it, html off)', () => {
  it('escapes raw HTML instead of passing it through', () => {
    const html = renderMarkdown('<script>alert(1)</script>\n\n<img src=x onerror=alert(2)> <b>bold?</b>', env);
    expect(html).not.toMatch(/<script|<img|<b>/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;b&gt;bold?&lt;/b&gt;');
  });

  it('keeps only http(s) and mailto links, opened without an opener; images are not rendered', () => {
    const html = renderMarkdown('[a](javascript:alert(1)) [b](data:text/html,x) [c](https://example.com/x) [d](mailto:a@b.c) ![i](https://example.com/i.png)', env);
    expect(html).not.toContain('href="javascript');
    expect(html).not.toContain('href="data:');
    expect(html).toContain('<a href="https://example.com/x" target="_blank" rel="noopener noreferrer nofollow">c</a>');
    expect(html).toContain('href="mailto:a@b.c"');
    expect(html).not.toContain('<img');
  });

  it('renders code blocks escaped with a copy button, lists and emphasis', () => {
    const html = renderMarkdown('**hi**\n\n- one\n- two\n\n```ts\nconst a = "<x>";\n```', env);
    expect(html).toContain('<strong>hi</strong>');
    expect(html).toContain('<li>one</li>');
    expect(html).toContain('<button type="button" class="copy-code" aria-label="Copy code">Copy</button>');
    expect(html).toContain('<code class="language-ts">const a = &quot;&lt;x&gt;&quot;;');
  });

  it('marks mentions in text (the signed-in owner strongly), never inside code or links', () => {
    const html = renderMarkdown('ping @builder(ada) and @ada, not `@ada` nor [@ada](https://example.com)', env);
    expect(html).toContain('<mark class="mention">@builder(ada)</mark>');
    expect(html).toContain('<mark class="mention me">@ada</mark>,');
    expect(html).toContain('<code>@ada</code>');
    expect(html).toContain('<a href="https://example.com" target="_blank" rel="noopener noreferrer nofollow">@ada</a>');
  });

  it('a language name cannot break out of its attribute', () => {
    const html = renderMarkdown('```"><script>x</script>\ny\n```', env);
    expect(html).not.toContain('<script>');
  });
});

describe('agent presence', () => {
  const inst = (lastSeenAgo: number) => ({ instance_id: 'i', handle: '@a#1', plate: 'P', host: 'codex', connected_at: '', last_seen: new Date(1_000_000 - lastSeenAgo).toISOString(), streaming: false, working_on: [] });
  it('offline without an instance, live when heard from within two minutes, idle after', () => {
    expect(presenceOf([], 1_000_000)).toBe('offline');
    expect(presenceOf([inst(30_000)], 1_000_000)).toBe('live');
    expect(presenceOf([inst(300_000)], 1_000_000)).toBe('idle');
    expect(presenceOf([inst(300_000), inst(1_000)], 1_000_000)).toBe('live');
  });
});
