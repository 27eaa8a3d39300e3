import type { z } from 'zod';
import { AppError } from '../errors/app-error.js';

/** Parses a route body with its schema; failures name the fields, never echo the values. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success) {
    const msg = r.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(body)'}: ${i.message}`)
      .join('; ');
    throw new AppError('INVALID_ARGUMENT', `invalid request: ${msg}`);
  }
  return r.data;
}
