/** Scopes of an agent, as the bitmask carried in the passport's `scopes` claim. */
export const SCOPE_BITS = {
  READ: 1,
  WRITE: 2,
  UPLOAD: 4,
  DOWNLOAD: 8,
  INVOKE: 16,
} as const;

export type ScopeName = keyof typeof SCOPE_BITS;
export const SCOPE_NAMES = Object.keys(SCOPE_BITS) as ScopeName[];
export const ALL_SCOPES_MASK = SCOPE_NAMES.reduce((m, s) => m | SCOPE_BITS[s], 0);

export function scopesToMask(names: readonly ScopeName[]): number {
  return names.reduce((m, s) => m | SCOPE_BITS[s], 0);
}

export function maskToScopes(mask: number): ScopeName[] {
  return SCOPE_NAMES.filter((s) => (mask & SCOPE_BITS[s]) !== 0);
}

export function hasScope(mask: number, scope: ScopeName): boolean {
  return (mask & SCOPE_BITS[scope]) !== 0;
}

export function isScopeName(s: unknown): s is ScopeName {
  return typeof s === 'string' && (SCOPE_NAMES as string[]).includes(s);
}
