/**
 * The window's stand-in for `uc.micro` (markdown-it's Unicode classes), bundled by the alias in
 * `src-renderer/vite.config.ts` (docs/ui.md "Size and speed"): the browser's own Unicode
 * property escapes instead of 5 KiB of generated ranges. markdown-it tests one UTF-16 unit at a
 * time against P and S; on every one of the 65,536 the answers are the package's
 * (test/unit/ui-markdown-deps.test.ts).
 */
export const P = /\p{P}/u;
export const S = /\p{S}/u;
export const Z = /\p{Z}/u;
export const Cc = /\p{Cc}/u;
export const Cf = /\p{Cf}/u;
export const Any = /[\s\S]/u;
