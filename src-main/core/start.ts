import { mkdirSync, writeFileSync, readFileSync, chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { flushWritesBehind, openDb, type Db, type Synchronous } from './db/open.js';
import { prepareHome } from './db/home.js';
import { acquireHomeLock } from './db/lock.js';
import { classifyDbError } from './db/home-errors.js';
import { dbFileSize, quickCheckInWorker, quickCheckSync, syncCheckLimit } from './db/integrity.js';
import { holdWritesUntil } from './http/write-gate.js';
import { startCheckpointer } from './db/checkpoint.js';
import type { RateLimitConfig } from './ratelimit.js';
import { GroupCommit } from './db/group-commit.js';
import { createHttpServer } from './http/server.js';
import { handleMcp } from './mcp/handler.js';
import { requirePorts, type Core, type CorePorts, type McpSessionLimits } from './core.js';
import type { StopStep } from './util/repeat.js';
import { assembleCore, ensurePrimaryOwner, type AssembleOptions } from './assemble.js';
import { CAPABILITY_PORTS } from './capabilities.js';
import { primaryOwner } from './owners/store.js';
import { createLoginLink } from './owners/login.js';
import { isInvited } from './rooms/invitations.js';
import type { CoreEvent } from '../../shared/core-events.js';
import { DEFAULT_PORT, packageRoot } from './paths.js';
import { exposureWarning, secureHome, touchPrivate } from './home-modes.js';
import { endStreams } from './http/streams.js';

/**
 * The core's public entry (docs/architecture.md "Services"): the desktop shell (src-main/electron/)
 * imports only this file and shared/ (the layering lint, src-main/core/layering.mjs
 * SHELL_IMPORT_RULE), so what it needs of the core is re-exported or given by RunningCore here.
 */
export { DEFAULT_PORT, packageRoot };
export { CSP } from './http/server.js';
export { HomeError } from './db/home-errors.js';

export interface StartOptions {
  home: string;
  /** 0 picks a free port. */
  port?: number;
  ownerName?: string;
  rateLimit?: RateLimitConfig;
  sessionIdleMs?: number;
  mcpSessionLimits?: Partial<McpSessionLimits>;
  /** Where diagnostics go (never secrets); default stderr. */
  log?: (line: string) => void;
  uiDir?: string;
  /**
   * ASYNC by default (asynchronous commit: one fdatasync shared by concurrent writes starts as a
   * write is acknowledged); GROUP (the answer waits for that sync), FULL (fsync at every commit)
   * and NORMAL (no sync before a checkpoint) for whoever asks through AGENT_ROOMS_SYNCHRONOUS and
   * for the benchmarks comparing them (docs/performance.md, "Asynchronous commit").
   */
  synchronous?: Synchronous;
  /** `--max-chain` and `--wake-budget`: win over the home's settings (docs/wakes.md). */
  maxChain?: number;
  wakeBudget?: number;
  /** `--worktrees DIR`: where task worktrees live (docs/worktrees.md). */
  worktreesDir?: string;
  /** The ports the capabilities answer through; CAPABILITY_PORTS unless a test gives others. */
  ports?: CorePorts;
  /** What starts a wake's run (assemble.ts): `runProcess` unless a test gives its own. */
  processRunner?: AssembleOptions['processRunner'];
}

export interface RunningCore {
  core: Core;
  port: number;
  baseUrl: string;
  mcpUrl: string;
  /** The primary owner's token, read from `<home>/owner-token`. */
  ownerToken: string;
  /** A fresh one-time UI login URL. */
  loginUrl: () => string;
  /**
   * Follows the core's events as the primary owner's window would see them: each event with the
   * primary owner's id, none from a room they are only invited to (docs/needs-you.md
   * "Invitations"); the desktop shell's notices. Returns the unsubscribe; nothing follows when
   * the home has no primary owner yet.
   */
  onOwnerEvent: (listener: (event: CoreEvent, ownerId: string) => void) => () => void;
  close: () => Promise<void>;
  /**
   * Settles when the start-up integrity check passed (at once for a small database). When a
   * large database fails it, the core closes itself and this rejects with a HomeError.
   */
  integrity: Promise<void>;
}

/** The one entry: starts the core (store, MCP resources, human API, UI) on 127.0.0.1. */
export async function startCore(opts: StartOptions): Promise<RunningCore> {
  const home = opts.home;
  // A core missing a port would silently skip what a capability must do: refuse before anything is opened.
  const ports = requirePorts(opts.ports ?? CAPABILITY_PORTS);
  // The home must be usable and ours alone before anything in it is opened (docs/backup.md).
  prepareHome(home);
  const lock = acquireHomeLock(home, 'serve');
  const log = opts.log ?? ((l: string) => process.stderr.write(l + '\n'));
  const dbFile = join(home, 'rooms.db');
  const synchronous: Synchronous = opts.synchronous ?? synchronousFromEnv() ?? 'ASYNC';
  let db: Db;
  let checkNow = true;
  try {
    // Only this user may read the home: repaired at every start, with a warning when it was open.
    const warning = exposureWarning(home, secureHome(home));
    if (warning) log(warning);
    mkdirSync(join(home, 'blobs'), { recursive: true, mode: 0o700 });
    // A small file is checked before migrations and listening; a large one after the ready line.
    checkNow = dbFileSize(dbFile) <= syncCheckLimit();
    touchPrivate(dbFile);
    db = openDb(dbFile, {
      synchronous,
      beforeMigrate: checkNow ? (d) => quickCheckSync(d, dbFile, home) : undefined,
      log,
    });
  } catch (err) {
    lock.release();
    throw classifyDbError(err, dbFile, home) ?? err;
  }
  const checkpointer = startCheckpointer(db, dbFile);
  // Under GROUP an acknowledgement waits for the WAL's shared fdatasync, under ASYNC it starts it;
  // under FULL each commit already synced.
  const groupCommit = synchronous === 'GROUP' || synchronous === 'ASYNC' ? new GroupCommit(db, `${dbFile}-wal`, { wait: synchronous === 'GROUP', onTrouble: log }) : undefined;
  const assembled = assembleCore({
    home,
    db,
    log,
    sessionIdleMs: opts.sessionIdleMs,
    mcpSessionLimits: opts.mcpSessionLimits,
    rateLimit: opts.rateLimit,
    wakeLimits: { maxChain: opts.maxChain, wakeBudget: opts.wakeBudget },
    worktreesDir: opts.worktreesDir,
    durable: groupCommit ? () => groupCommit.durable() : undefined,
    ports,
    processRunner: opts.processRunner,
  });
  const { core } = assembled;
  let ownerToken: string;
  try {
    ownerToken = ensurePrimaryOwner(core, opts.ownerName ?? safeUserName());
  } catch (err) {
    await checkpointer.stop();
    db.close();
    lock.release();
    throw classifyDbError(err, dbFile, home) ?? err;
  }
  let port = opts.port ?? DEFAULT_PORT;
  const server = createHttpServer(
    {
      core,
      router: assembled.router,
      authenticateOwner: assembled.authenticateOwner,
      mcp: (req, res, host, url) => handleMcp(core, assembled.mcp, req, res, host, url),
      uiDir: opts.uiDir ?? join(packageRoot(), 'dist', 'renderer'),
      rawHandlers: assembled.rawHandlers,
    },
    () => port,
  );
  const integrity = checkNow ? Promise.resolve() : quickCheckInWorker(dbFile, home);
  integrity.catch(() => {});
  // Until a large file's check passed, requests that may write wait (reads are served).
  if (!checkNow) holdWritesUntil(server, integrity);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    // E.g. the port is taken: leave nothing open behind us, so the caller can retry on another port.
    await checkpointer.stop();
    db.close();
    lock.release();
    throw err;
  }
  port = (server.address() as { port: number }).port;
  core.baseUrl = `http://127.0.0.1:${port}`;
  lock.setUrl(core.baseUrl);
  // Background writers (dispatcher, sweeps, snapshots) start once the file is known sound.
  const stopSteps: StopStep[] = [];
  const startCapabilities = () => {
    stopSteps.push(...assembled.startCapabilities());
  };
  if (checkNow) startCapabilities();
  else
    integrity.then(
      () => {
        if (!closing) startCapabilities();
      },
      (err: Error) => {
        log(`agent-rooms: ${err.message}`);
        void close();
      },
    );

  const sweeper = setInterval(() => {
    void core.sessions.sweep(core.config.sessionIdleMs);
  }, Math.min(60_000, Math.max(1000, core.config.sessionIdleMs / 4)));
  sweeper.unref();

  const serverJson = join(home, 'server.json');
  writeFileSync(
    serverJson,
    JSON.stringify({ pid: process.pid, port, mcp_url: `${core.baseUrl}/mcp`, ui_url: `${core.baseUrl}/` }, null, 2) + '\n',
    { mode: 0o600 },
  );
  chmodSync(serverJson, 0o600);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      clearInterval(sweeper);
      // Background work stops in reverse order of starting (e.g. a snapshot in progress finishes before the database closes).
      for (const stop of stopSteps.reverse()) {
        try {
          await stop();
        } catch (err) {
          log(`agent-rooms: a capability failed to stop: ${(err as Error).message}`);
        }
      }
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Streams (SSE, MCP GET) never end by themselves: they close now; requests in flight get 2 s.
        endStreams(core);
        setTimeout(() => server.closeAllConnections(), 2000).unref();
        server.closeIdleConnections();
      });
      await Promise.all(core.sessions.all().map((s) => core.sessions.close(s.id)));
      // Writes queued behind answers run at the end of their turn; none is left to a closed store.
      flushWritesBehind(db);
      await groupCommit?.close();
      await checkpointer.stop();
      db.close();
      try {
        const cur = JSON.parse(readFileSync(serverJson, 'utf8')) as { pid: number; port: number };
        if (cur.pid === process.pid && cur.port === port) rmSync(serverJson);
      } catch {
        // already gone
      }
      lock.release();
    })());

  return {
    core,
    port,
    baseUrl: core.baseUrl,
    mcpUrl: `${core.baseUrl}/mcp`,
    ownerToken,
    loginUrl: () => createLoginLink(db, core.baseUrl, primaryOwner(db)!.owner_id).url,
    onOwnerEvent: (listener) => {
      const ownerId = primaryOwner(db)?.owner_id;
      if (!ownerId) return () => {};
      return core.bus.on((event) => {
        if (event.room && isInvited(db, event.room, ownerId)) return;
        listener(event, ownerId);
      });
    },
    close,
    integrity,
  };
}

/** `AGENT_ROOMS_SYNCHRONOUS=async|group|full|normal` (default async; docs/performance.md). `normal` never syncs before a checkpoint. */
function synchronousFromEnv(): Synchronous | undefined {
  const v = process.env.AGENT_ROOMS_SYNCHRONOUS?.toUpperCase();
  return v === 'NORMAL' || v === 'FULL' || v === 'GROUP' || v === 'ASYNC' ? v : undefined;
}

function safeUserName(): string {
  try {
    return userInfo().username || 'owner';
  } catch {
    return 'owner';
  }
}
