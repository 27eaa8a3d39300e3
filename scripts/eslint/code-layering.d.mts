/** Types of code-layering.mjs (JavaScript so eslint.config.js can load it). */
import type { Rule } from 'eslint';

export const codeLayering: Rule.RuleModule;
export const localPlugin: { rules: Record<string, Rule.RuleModule> };
