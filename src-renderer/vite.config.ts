import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  esbuild: { jsx: 'automatic' },
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
