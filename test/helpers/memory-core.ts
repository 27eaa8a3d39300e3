import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MCP_SESSION_LIMITS, requirePorts, type Core } from '../../src-main/core/core.js';
import { openDb } from '../../src-main/core/db/open.js';
import { loadSigningKey } from '../../src-main/core/auth/keys.js';
import { PassportService } from '../../src-main/core/auth/passports.js';
import { EventBus } from '../../src-main/core/bus.js';
import { RateLimiter } from '../../src-main/core/ratelimit.js';
import { SessionRegistry } from '../../src-main/core/sessions.js';
import { CAPABILITY_PORTS } from '../../src-main/core/capabilities.js';
import type { CoreEvent } from '../../shared/core-events.js';

/**
 * A core without HTTP or MCP, for tests of rules (services, stores, ports): the real SQLite
 * store, migrated, in memory; a temp home for the keys and blobs; the capabilities' ports
 * given as start.ts gives them; no background loops (starters) and no listener.
 * Adapters (routes, tools, the transports) and end-to-end walks keep test/helpers/server.ts.
 */
export interface MemoryCore {
  core: Core;
  home: string;
  /** Every event the core emitted, in order. */
  events: CoreEvent[];
  close(): void;
}

export function openMemoryCore(): MemoryCore {
  const home = mkdtempSync(join(tmpdir(), 'ar-core-'));
  mkdirSync(join(home, 'blobs'), { recursive: true, mode: 0o700 });
  const db = openDb(':memory:');
  const signingKey = loadSigningKey(home);
  const core: Core = {
    db,
    config: { home, sessionIdleMs: 30 * 60 * 1000, mcpSessionLimits: DEFAULT_MCP_SESSION_LIMITS, log: () => {}, wakeLimits: {} },
    signingKey,
    passports: new PassportService(signingKey),
    bus: new EventBus(),
    rateLimiter: new RateLimiter({ perSecond: 0, burst: 0 }),
    sessions: new SessionRegistry(),
    baseUrl: 'http://127.0.0.1:0',
    ports: requirePorts(CAPABILITY_PORTS),
    // No group commit in memory: nothing to wait for before an answer.
    durable: () => Promise.resolve(),
  };
  const events: CoreEvent[] = [];
  const unsubscribe = core.bus.on((e) => void events.push(e));
  return {
    core,
    home,
    events,
    close() {
      unsubscribe();
      db.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
