import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Core } from '../../src-main/core/core.js';
import { assembleCore } from '../../src-main/core/assemble.js';
import type { CoreEvent } from '../../shared/core-events.js';

/**
 * A core without HTTP or MCP, for tests of services and stores: the real SQLite store, migrated,
 * in memory; a temp home for the keys and blobs; the capabilities' hooks registered, assembled
 * as start.ts assembles it (src-main/core/assemble.ts); no background loops and no listener.
 * Tests that drive the core through its routes and tools use openTestApp (app.ts); adapters
 * (the transports) and end-to-end walks keep test/helpers/server.ts.
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
  // No group commit in memory: nothing to wait for before an answer.
  const { core, hookStops } = assembleCore({ home, db: 'memory', log: () => {}, baseUrl: 'http://127.0.0.1:0', rateLimit: { perSecond: 0, burst: 0 } });
  const events: CoreEvent[] = [];
  const unsubscribe = core.bus.on((e) => void events.push(e));
  return {
    core,
    home,
    events,
    close() {
      unsubscribe();
      for (const stop of hookStops.reverse()) void stop();
      core.db.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
