import type { Migration } from '../migrate.js';
import { migration0001 } from './0001-core.js';

/** Every migration, in order. A new one is a new file and one line here. */
export const MIGRATIONS: Migration[] = [migration0001];
