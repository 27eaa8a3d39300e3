/**
 * The ESLint rule `local/code-layering` (tooling, not product code): it enforces the allowed
 * graph that src-main/core/layering.mjs states as data. eslint.config.js registers it.
 */
import { ALLOWED, TYPE_ONLY_EXCEPTIONS, findCycles, folderOf } from '../../src-main/core/layering.mjs';

const show = (node) => (node.startsWith('(') ? node : `${node}/`);

const CORE = '/src-main/core/';

/** src-main/core/<file> relative to the core, or undefined for files outside it. */
function coreRelative(filename) {
  const f = filename.split('\\').join('/');
  const at = f.lastIndexOf(CORE);
  return at < 0 ? undefined : f.slice(at + CORE.length);
}

/** Resolves a relative import against the importing file; undefined when it leaves the core (shared/, packages). */
function resolveInCore(fromRel, spec) {
  const parts = fromRel.split('/').slice(0, -1);
  for (const p of spec.split('/')) {
    if (p === '.' || p === '') continue;
    if (p === '..') {
      if (!parts.length) return undefined;
      parts.pop();
    } else parts.push(p);
  }
  return parts.join('/').replace(/\.js$/, '.ts');
}

/**
 * `local/code-layering`, in the style of VS Code's code-layering rule: an import of another
 * folder of the core must be in the allowed graph (the rule's options), and the allowed graph
 * must have no cycle. Options: `{ allowed, typeOnlyExceptions }`.
 */
export const codeLayering = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports between folders of src-main/core follow the allowed graph of src-main/core/layering.mjs' },
    schema: [{ type: 'object', properties: { allowed: { type: 'object' }, typeOnlyExceptions: { type: 'array' } }, additionalProperties: false }],
    messages: {
      bad: 'Bad layering: {{from}} may not import {{to}} (allowed: {{allowed}}). See src-main/core/layering.mjs.',
      unplaced: 'Bad layering: {{from}} is not in the allowed graph of src-main/core/layering.mjs; add it with the folders it may import.',
      cycle: 'Bad layering: the allowed graph has a cycle between {{cycle}}; a lower folder gets what it needs from an upper one through a port (core.ports, core.ts CorePorts).',
    },
  },
  create(context) {
    const rel = coreRelative(context.filename ?? context.getFilename());
    if (!rel) return {};
    const { allowed = ALLOWED, typeOnlyExceptions = TYPE_ONLY_EXCEPTIONS } = context.options[0] ?? {};
    const from = folderOf(rel);
    const check = (node, source, typeOnly) => {
      if (typeof source?.value !== 'string' || !source.value.startsWith('.')) return;
      const target = resolveInCore(rel, source.value);
      if (target === undefined) return;
      const to = folderOf(target);
      if (to === from || from === '(root)') return;
      if (!(from in allowed)) return context.report({ node, messageId: 'unplaced', data: { from: show(from) } });
      if (allowed[from].includes(to)) return;
      if (typeOnly && typeOnlyExceptions.some((e) => e.from === from && e.to === to)) return;
      context.report({ node, messageId: 'bad', data: { from: show(from), to: show(to), allowed: allowed[from].map(show).join(', ') || 'none' } });
    };
    return {
      Program(node) {
        for (const cycle of findCycles(allowed)) {
          if (cycle.includes(from)) context.report({ node, messageId: 'cycle', data: { cycle: cycle.map(show).join(', ') } });
        }
      },
      ImportDeclaration: (node) => check(node, node.source, node.importKind === 'type' || (node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === 'type'))),
      ExportNamedDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ExportAllDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ImportExpression: (node) => check(node, node.source, false),
      TSImportType: (node) => check(node, node.argument?.literal ?? node.argument, true),
    };
  },
};

/** The ESLint plugin eslint.config.js registers as `local`. */
export const localPlugin = { rules: { 'code-layering': codeLayering } };
