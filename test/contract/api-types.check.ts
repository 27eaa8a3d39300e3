/**
 * Compile-time contract between the server's DTOs and the shapes the UI reads
 * (shared/api-types.ts). Type-checked by `npm run lint` (tsconfig.test.json); nothing runs:
 * a server change that the UI's types no longer accept fails the build instead of the UI.
 */
import type * as Api from '../../shared/api-types.js';
import type { Owner } from '../../src-main/core/owners/store.js';

/** Compiles only when the server's shape `S` is accepted where the UI expects `U`. */
type Accepts<U, S extends U> = [U, S];

export type ApiContract = [
  Accepts<Api.Owner, Owner>,
];
