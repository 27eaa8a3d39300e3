import { AppError } from './errors/app-error.js';

export interface RateLimitConfig {
  perSecond: number; // 0 turns the limit off
  burst: number;
}

/** A token bucket per plate (docs/contract.md "Limits": 50/s, burst 200). */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly cfg: RateLimitConfig) {}

  take(key: string, now = Date.now()): void {
    if (this.cfg.perSecond <= 0) return;
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: this.cfg.burst, at: now };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(this.cfg.burst, b.tokens + ((now - b.at) / 1000) * this.cfg.perSecond);
    b.at = now;
    if (b.tokens < 1) {
      const retryAfterMs = Math.ceil(((1 - b.tokens) / this.cfg.perSecond) * 1000);
      throw new AppError('RATE_LIMITED', `rate limit of ${this.cfg.perSecond} calls/s exceeded; retry after ${retryAfterMs} ms`, {
        retryable: true,
        retryAfterMs,
      });
    }
    b.tokens -= 1;
  }

  /** Gives back the token of a take() whose request turned out to cost nothing (e.g. was refused). */
  refund(key: string): void {
    const b = this.buckets.get(key);
    if (b) b.tokens = Math.min(this.cfg.burst, b.tokens + 1);
  }
}

export function parseRateLimit(s: string): RateLimitConfig {
  const m = /^(\d+(?:\.\d+)?)(?::(\d+))?$/.exec(s.trim());
  if (!m) throw new Error(`--rate-limit takes PER_SECOND[:BURST], got "${s}"`);
  const perSecond = Number(m[1]);
  return { perSecond, burst: m[2] ? Number(m[2]) : Math.max(1, Math.round(perSecond * 4)) };
}
