import MarkdownIt from 'markdown-it';

/**
 * Chat Markdown, rendered safely: raw HTML is never passed through (`html: false` escapes it),
 * links must be http(s) or mailto and open in a new window without an opener, images are off
 * (a message must not load anything), code blocks get a copy button, and mentions are marked.
 * In the window's bundle markdown-it's own dependencies are small stand-ins (src/markdown-deps/,
 * docs/ui.md "Size and speed"): bare links are http(s) and e-mail addresses, as before.
 */
const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });
md.disable(['image']);
md.validateLink = (url: string) => /^(https?:\/\/|mailto:)/i.test(url.trim());

const esc = (s: string) => md.utils.escapeHtml(s);

md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  const t = tokens[idx]!;
  t.attrSet('target', '_blank');
  t.attrSet('rel', 'noopener noreferrer nofollow');
  return self.renderToken(tokens, idx, options);
};

function codeBlock(content: string, lang: string): string {
  return `<div class="code"><button type="button" class="copy-code" aria-label="Copy code">Copy</button><pre><code${lang ? ` class="language-${esc(lang)}"` : ''}>${esc(content)}</code></pre></div>`;
}
md.renderer.rules.fence = (tokens, idx) => {
  const t = tokens[idx]!;
  return codeBlock(t.content, t.info.trim().split(/\s+/)[0] ?? '');
};
md.renderer.rules.code_block = (tokens, idx) => codeBlock(tokens[idx]!.content, '');

export interface MentionEnv {
  /** Handles to mark, longest first. */
  handles: string[];
  /** Lower-case handles that mean the signed-in owner. */
  mine: Set<string>;
}

// Mentions in plain text (never in code) become <mark> elements built here, from escaped text.
md.core.ruler.push('mentions', (state) => {
  const env = state.env as unknown as MentionEnv | undefined;
  if (!env?.handles.length) return;
  const re = new RegExp(env.handles.map((h) => `${h.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:#[A-Za-z0-9]+)?`).join('|'), 'gi');
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: typeof block.children = [];
    let insideLink = 0;
    for (const child of block.children) {
      if (child.type === 'link_open') insideLink++;
      if (child.type === 'link_close') insideLink--;
      if (child.type !== 'text' || insideLink > 0) {
        out.push(child);
        continue;
      }
      const text = child.content;
      let last = 0;
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(text))) {
        if (m.index > last) {
          const t = new state.Token('text', '', 0);
          t.content = text.slice(last, m.index);
          out.push(t);
        }
        const base = m[0].replace(/#.*$/, '').toLowerCase();
        const h = new state.Token('html_inline', '', 0);
        h.content = `<mark class="mention${env.mine.has(base) ? ' me' : ''}">${esc(m[0])}</mark>`;
        out.push(h);
        last = m.index + m[0].length;
      }
      if (last === 0) out.push(child);
      else if (last < text.length) {
        const t = new state.Token('text', '', 0);
        t.content = text.slice(last);
        out.push(t);
      }
    }
    block.children = out;
  }
});

export function renderMarkdown(body: string, env: MentionEnv): string {
  return md.render(body, { ...env });
}
