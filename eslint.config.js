import tseslint from 'typescript-eslint';
import { ALLOWED, SHELL_IMPORT_RULE, TYPE_ONLY_EXCEPTIONS } from './src-main/core/layering.mjs';
import { localPlugin } from './scripts/eslint/code-layering.mjs';

const nodeBuiltins = ['node:*', 'fs', 'fs/*', 'path', 'crypto', 'http', 'https', 'os', 'child_process', 'net', 'url', 'stream', 'events', 'util', 'worker_threads', 'zlib', 'buffer'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/hosts/node_modules/**', 'test-results/**', '**/*.config.ts', '**/*.config.js'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The layering: only src-main/electron/ may import electron.
    files: ['src-main/core/**/*.ts', 'shared/**/*.ts', 'src-renderer/**/*.{ts,tsx}', 'test/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'Only src-main/electron/ may import electron.' }] }],
    },
  },
  {
    // The layering inside the core: which folder may import which is data (src-main/core/layering.mjs),
    // enforced by the rule in scripts/eslint/code-layering.mjs.
    files: ['src-main/core/**/*.ts'],
    plugins: { local: localPlugin },
    rules: {
      'local/code-layering': ['error', { allowed: ALLOWED, typeOnlyExceptions: TYPE_ONLY_EXCEPTIONS }],
    },
  },
  {
    // The desktop shell reaches the core through start.ts only (src-main/core/layering.mjs SHELL_IMPORT_RULE).
    files: ['src-main/electron/**/*.{ts,cts}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [SHELL_IMPORT_RULE] }],
    },
  },
  {
    // Renderer and shared code run in a browser: no Node built-ins, no native modules.
    files: ['shared/**/*.ts', 'src-renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'electron', message: 'Only src-main/electron/ may import electron.' },
            { name: 'better-sqlite3', message: 'The store lives in the core.' },
          ],
          patterns: [{ group: nodeBuiltins, message: 'Renderer and shared code must not import Node built-ins.' }],
        },
      ],
    },
  },
);
