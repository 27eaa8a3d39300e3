// Types for scripts/dist.mjs (a plain Node script, imported by the packaging tests).
type Env = Record<string, string | undefined>;
export function targetPlatform(mode: string, host?: string): string;
export function resolveElectron(env: Env, version: string, platform: string, arch: string): Promise<{ electronDist: string } | { download: string } | { missing: string }>;
export function electronGypDir(version: string): string;
export function resolveHeaders(env: Env, version: string): Promise<{ ok: string } | { missing: string }>;
export function buildEnv(env: Env): Env;
export function downloadFailureLine(err: unknown, version: string): string | undefined;
