/** Types of layering.mjs (the data is JavaScript so eslint.config.js and scripts/eslint/code-layering.mjs can load it). */
export type Graph = Record<string, readonly string[]>;

export const BASE_FILES: readonly string[];
export const ROOT_FILES: readonly string[];
export const INFRASTRUCTURE: Graph;
export const CAPABILITIES: Graph;
export const ALLOWED: Graph;
export const TYPE_ONLY_EXCEPTIONS: ReadonlyArray<{ from: string; to: string; reason: string }>;
export const TABLE_OWNERS: Readonly<Record<string, string>>;
export const TABLE_EXCEPTIONS: ReadonlyArray<{ file: string; tables: '*' | readonly string[]; reason: string }>;

export function folderOf(rel: string): string;
export function findCycles(graph: Graph): string[][];
export function allowedGraphMarkdown(): string;
export function tableOwnersMarkdown(): string;
