import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { installMemos } from './db/watch.js';
import { openDb, type Db } from './db/open.js';
import { loadSigningKey } from './auth/keys.js';
import { PassportService } from './auth/passports.js';
import { EventBus } from './bus.js';
import { RateLimiter, type RateLimitConfig } from './ratelimit.js';
import { SessionRegistry } from './sessions.js';
import { ToolRegistry } from './mcp/registry.js';
import { Router } from './http/router.js';
import { newInitializeLimiter, type McpEndpoint } from './mcp/handler.js';
import type { ApiDeps } from './http/api.js';
import { DEFAULT_MCP_SESSION_LIMITS, requirePorts, requireServices, type Core, type CorePorts, type CoreServices, type McpSessionLimits } from './core.js';
import { LoopCount, type StopStep } from './util/repeat.js';
import { ALL_ROUTES, ALL_TOOLS, CAPABILITY_PORTS, CAPABILITY_STARTERS, RAW_HANDLERS } from './capabilities.js';
import { createOwner, ownerByToken, primaryOwner, rotateOwnerToken } from './owners/store.js';
import { sealStoredRunnerEnvs } from './wakes/env-seal.js';
import { writeParkedLeftBehind } from './messages/parked.js';
import { WakeDispatcher } from './wakes/dispatcher.js';
import { WakeLimitsService } from './wakes/limits.js';
import { runProcess, type ProcessRunner } from './wakes/runners.js';
import { BlobStore } from './files/blobs.js';
import { PresignKey } from './files/presign.js';
import { EventHub } from './events/routes.js';
import { newBackupRunState } from './backup/service.js';

export interface AssembleOptions {
  home: string;
  /** The opened, migrated store; `'memory'` opens a private SQLite database in memory (tests of rules). */
  db: Db | 'memory';
  log: (line: string) => void;
  sessionIdleMs?: number;
  mcpSessionLimits?: Partial<McpSessionLimits>;
  rateLimit?: RateLimitConfig;
  wakeLimits?: { maxChain?: number; wakeBudget?: number };
  /** `--worktrees DIR` (docs/worktrees.md); default a sibling of the home named agent-rooms-worktrees. */
  worktreesDir?: string;
  /** Resolves once the writes so far are on disk (the group commit); default: at once. */
  durable?: () => Promise<void>;
  /** `http://127.0.0.1:PORT` when known; a server sets it once it listens. */
  baseUrl?: string;
  /** The ports the capabilities answer through (checked by requirePorts); CAPABILITY_PORTS unless a test gives others. */
  ports?: CorePorts;
  /** What starts a wake's run: `runProcess` (a child process) unless a test gives its own (test/helpers/app-runner.ts). */
  processRunner?: ProcessRunner;
}

/** A core put together, not yet serving: what the HTTP server and the in-process test app both run. */
export interface AssembledCore {
  core: Core;
  registry: ToolRegistry;
  router: Router;
  /** The MCP endpoint's tools and agent authentication (mcp/handler.ts, and in-process tool calls). */
  mcp: McpEndpoint;
  /** How the human API authenticates an owner (http/api.ts). */
  authenticateOwner: ApiDeps['authenticateOwner'];
  /** Paths outside /v1 and /mcp that capabilities serve themselves. */
  rawHandlers: Array<(req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean> | boolean>;
  /** Starts the capabilities' background work (dispatcher, sweeps, snapshots); returns their stop steps. */
  startCapabilities(): StopStep[];
}

/**
 * The one way the core is put together (docs/architecture.md "Assembly"): the Core with its
 * parts, the capabilities' ports, the tool registry and the route table. start.ts adds the
 * file's checks, the listener and the background work; test/helpers/app.ts runs the same core
 * in process, over a database in memory.
 */
export function assembleCore(opts: AssembleOptions): AssembledCore {
  const { home } = opts;
  const ports = requirePorts(opts.ports ?? CAPABILITY_PORTS);
  mkdirSync(join(home, 'blobs'), { recursive: true, mode: 0o700 });
  const db = opts.db === 'memory' ? openDb(':memory:') : opts.db;
  // The remembered reads' triggers (db/watch.ts), before any request can open a transaction.
  installMemos(db);
  const signingKey = loadSigningKey(home);
  // Runner env values stored in clear by earlier versions are sealed like the git token.
  const sealed = sealStoredRunnerEnvs(db);
  if (sealed) opts.log(`sealed the stored env of ${sealed} runner(s)`);
  // Inbox items and parked wakes answered but not written when the last process stopped (messages/parked.ts).
  const parked = writeParkedLeftBehind(db);
  if (parked) opts.log(`wrote the inbox items of ${parked} message(s) answered just before the server stopped`);
  // The services are built below, once the core they belong to exists (the dispatcher keeps it).
  const core: Omit<Core, 'services'> & { services?: CoreServices } = {
    db,
    config: {
      home,
      sessionIdleMs: opts.sessionIdleMs ?? 30 * 60 * 1000,
      // Benchmarks turn the rate limit off (--rate-limit 0): the initialize limit goes with it.
      mcpSessionLimits: {
        ...DEFAULT_MCP_SESSION_LIMITS,
        ...(opts.rateLimit && opts.rateLimit.perSecond <= 0 ? { initializePerSecond: 0 } : {}),
        ...opts.mcpSessionLimits,
      },
      log: opts.log,
      wakeLimits: opts.wakeLimits ?? {},
      worktreesDir: resolveWorktreesDir(home, opts.worktreesDir),
    },
    signingKey,
    passports: new PassportService(signingKey),
    bus: new EventBus(),
    rateLimiter: new RateLimiter(opts.rateLimit ?? { perSecond: 50, burst: 200 }),
    sessions: new SessionRegistry(),
    baseUrl: opts.baseUrl ?? '',
    ports,
    durable: opts.durable ?? (() => Promise.resolve()),
  };
  return finish(core as Core, ports, buildServices(core as Core, opts));
}

/**
 * Every service of the core (core.ts CoreServices, docs/architecture.md "Services"), built
 * before anything can call: none is made on first use, and none is optional.
 */
function buildServices(core: Core, opts: AssembleOptions): CoreServices {
  return {
    loops: new LoopCount(),
    dispatcher: new WakeDispatcher(core),
    wakeLimits: new WakeLimitsService(core.config.home, core.config.wakeLimits ?? {}),
    processRunner: opts.processRunner ?? runProcess,
    versionCache: new Map(),
    blobs: new BlobStore(core.config.home),
    presignKey: new PresignKey(core.config.home),
    eventHub: new EventHub(core),
    backups: newBackupRunState(),
    mintedIdentities: new Map(),
    openStreams: new Set(),
    lastMcpCall: { session: '', at: 0 },
    mcpInitializeLimiter: newInitializeLimiter(core.config.mcpSessionLimits),
  };
}

function finish(core: Core, ports: CorePorts, services: CoreServices): AssembledCore {
  core.services = requireServices(services);
  const registry = new ToolRegistry(ALL_TOOLS, ports);
  return {
    core,
    registry,
    router: new Router(ALL_ROUTES, ports),
    mcp: { registry, authenticate: ports.authenticateAgent },
    authenticateOwner: ports.authenticateOwner,
    rawHandlers: RAW_HANDLERS.map((h) => (req: IncomingMessage, res: ServerResponse, url: URL) => h(core, req, res, url)),
    startCapabilities: () => CAPABILITY_STARTERS.map((start) => start(core)),
  };
}

/**
 * Where task worktrees live (docs/worktrees.md): the given folder (`--worktrees`,
 * AGENT_ROOMS_WORKTREES), else `agent-rooms-worktrees` beside the home. Never the home or
 * inside it: runners never work there.
 */
export function resolveWorktreesDir(home: string, given: string | undefined): string {
  const dir = resolve(given ?? process.env.AGENT_ROOMS_WORKTREES ?? join(dirname(resolve(home)), 'agent-rooms-worktrees'));
  const rel = relative(resolve(home), dir);
  if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) {
    throw new Error(`the worktrees folder ${dir} is the data home or inside it; runners never work there (choose another with --worktrees)`);
  }
  return dir;
}

function writeSecretFile(file: string, text: string) {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** Makes sure the primary owner exists and `<home>/owner-token` (0600) holds its token. */
export function ensurePrimaryOwner(core: Core, name: string): string {
  const file = join(core.config.home, 'owner-token');
  const existing = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  const primary = primaryOwner(core.db);
  if (!primary) {
    const { token } = createOwner(core.db, { name, isPrimary: true });
    writeSecretFile(file, token + '\n');
    return token;
  }
  if (existing && ownerByToken(core.db, existing)?.owner_id === primary.owner_id) {
    chmodSync(file, 0o600);
    return existing;
  }
  // The file was lost or replaced: rotate the primary owner's token and write it again.
  const token = rotateOwnerToken(core.db, primary.owner_id);
  writeSecretFile(file, token + '\n');
  return token;
}
