import { defineConfig, type Plugin } from 'vite';
import { fileURLToPath } from 'node:url';
import { contracts } from '../shared/contracts/index';

const root = fileURLToPath(new URL('.', import.meta.url));
const dep = (file: string) => fileURLToPath(new URL(`./src/markdown-deps/${file}`, import.meta.url));

/**
 * The contracts as the window's bundle holds them (docs/ui.md "The API client"): each endpoint's
 * method and path, and nothing of its schemas, so zod and the records' schemas never ship. The
 * client's types still come from the whole contracts (src-renderer/src/client.ts).
 */
function contractTable(): Plugin {
  const index = fileURLToPath(new URL('../shared/contracts/index.ts', import.meta.url));
  const table = Object.fromEntries(
    Object.entries(contracts).map(([cap, endpoints]) => [
      cap,
      Object.fromEntries(Object.entries(endpoints as Record<string, { method: string; path: string; session?: string }>).map(([name, e]) => [
        name,
        { method: e.method, path: e.path, ...(e.session ? { session: e.session } : {}) },
      ])),
    ]),
  );
  return {
    name: 'agent-rooms-contract-table',
    apply: 'build',
    enforce: 'pre',
    load: (id) => (id === index ? `export const contracts = ${JSON.stringify(table)};\n` : null),
  };
}

export default defineConfig({
  root,
  plugins: [contractTable()],
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
