import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors/app-error.js';

/** How long a whole request body may take to arrive, however slowly it dribbles in (a slowloris defence). */
export const bodyTimeouts = { ms: 30_000 };

/**
 * Reads a request body up to `limit` bytes; refuses a larger one before reading it whole, and a
 * body that does not arrive within `bodyTimeouts.ms`. On refusal it stops reading: the error
 * response then closes the connection (see respond.ts), so the rest is never drained.
 */
export function readBody(req: IncomingMessage, limit: number, timeoutMs = bodyTimeouts.ms): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.pause();
      reject(new AppError('PAYLOAD_TOO_LARGE', `request body over ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const stop = (err: AppError) => {
      done = true;
      clearTimeout(timer);
      req.pause();
      reject(err);
    };
    const timer = setTimeout(() => {
      if (!done) stop(new AppError('INVALID_ARGUMENT', 'request body not received in time', { httpStatus: 408, reason: 'body_timeout' }));
    }, timeoutMs);
    timer.unref();
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > limit) {
        stop(new AppError('PAYLOAD_TOO_LARGE', `request body over ${limit} bytes`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        resolve(Buffer.concat(chunks));
      }
    });
    req.on('error', (e) => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        reject(e);
      }
    });
  });
}
