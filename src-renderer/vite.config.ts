import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const dep = (file: string) => fileURLToPath(new URL(`./src/markdown-deps/${file}`, import.meta.url));

export default defineConfig({
  root,
  base: '/',
  esbuild: { jsx: 'automatic' },
  resolve: {
    // markdown-it's dependencies, each replaced by what chat Markdown needs of it (a few lines on
    // the browser's Unicode and URL support instead of 40 KiB of tables): docs/ui.md "Size and
    // speed", compared with the packages in test/unit/ui-markdown-deps.test.ts.
    alias: [
      { find: /^entities$/, replacement: dep('entities.ts') },
      { find: /^linkify-it$/, replacement: dep('linkify-it.ts') },
      { find: /^punycode\.js$/, replacement: dep('punycode.ts') },
      { find: /^uc\.micro$/, replacement: dep('uc-micro.ts') },
    ],
  },
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    // No source maps in production builds: they would double the download and publish the sources.
    sourcemap: false,
  },
  server: {
    proxy: { '/v1': 'http://127.0.0.1:7337', '/login': 'http://127.0.0.1:7337', '/logout': 'http://127.0.0.1:7337' },
  },
});
