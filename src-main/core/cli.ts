#!/usr/bin/env node
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_PORT, defaultHome } from './paths.js';
import { parseRateLimit, type RateLimitConfig } from './ratelimit.js';
import { openDb } from './db/open.js';
import { createLoginLink } from './owners/login.js';
import { primaryOwner } from './owners/store.js';
import { guardCommand, GUARD_USAGE } from './reservations/guard.js';
import { connect, doctor, HOSTS_USAGE } from './hosts/connect.js';
import { runBackupCommand } from './backup/commands.js';
import { HomeError, HOME_EXIT_CODES } from './db/home-errors.js';
import { parseMaxChain, parseWakeBudget } from './wakes/limits.js';

const USAGE = `agent-rooms: local collaboration rooms for agents and humans

Usage:
  agent-rooms serve [--port N] [--home DIR] [--owner-name NAME] [--rate-limit PER_SECOND[:BURST]]
                    [--max-chain N] [--wake-budget N] [--worktrees DIR]
      Run the core headless on 127.0.0.1 (default port ${DEFAULT_PORT}; --port 0 picks a free one).
      --worktrees: where each task's git worktree is made (default: agent-rooms-worktrees beside the home).
  agent-rooms open [--home DIR]
      Print a fresh one-time UI login URL for the running server.
${GUARD_USAGE}
${HOSTS_USAGE}
  agent-rooms backup [DEST] [--home DIR]
      A verified copy of the home (through the running server, if any); default DEST: <home>/backups/manual-<time>.
  agent-rooms restore SRC [--home DIR]
      Replace the home with a backup (refused while a server runs; the previous home is kept aside).
  agent-rooms export ROOM [DEST] [--home DIR]
      One room as readable files (JSON lines + files); DEST ending in .tar writes one archive.
  agent-rooms --help

Environment: AGENT_ROOMS_HOME, AGENT_ROOMS_PORT, AGENT_ROOMS_WORKTREES.`;

interface Flags {
  port?: number;
  home?: string;
  ownerName?: string;
  rateLimit?: RateLimitConfig;
  bind?: string;
  maxChain?: number;
  wakeBudget?: number;
  worktrees?: string;
}

function parseFlags(argv: string[]): Flags {
  const f: Flags = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [name, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${name} needs a value`);
      return v;
    };
    switch (name) {
      case '--port': {
        const v = value();
        const n = Number(v);
        if (!/^\d+$/.test(v) || n > 65535) throw new Error(`--port takes 0 to 65535, got "${v}"`);
        f.port = n;
        break;
      }
      case '--home':
        f.home = value();
        break;
      case '--owner-name':
        f.ownerName = value();
        break;
      case '--rate-limit':
        f.rateLimit = parseRateLimit(value());
        break;
      case '--host':
      case '--bind':
        f.bind = value();
        break;
      case '--max-chain':
        f.maxChain = parseMaxChain(value());
        break;
      case '--wake-budget':
        f.wakeBudget = parseWakeBudget(value());
        break;
      case '--worktrees':
        f.worktrees = value();
        break;
      default:
        throw new Error(`unknown option ${a}`);
    }
  }
  return f;
}

async function serve(flags: Flags) {
  if (flags.bind !== undefined && flags.bind !== '127.0.0.1' && flags.bind !== 'localhost') {
    throw new Error(`agent-rooms binds 127.0.0.1 only; refusing to bind ${flags.bind}`);
  }
  const envPort = process.env.AGENT_ROOMS_PORT;
  if (flags.port === undefined && envPort !== undefined) {
    if (!/^\d+$/.test(envPort) || Number(envPort) > 65535) throw new Error(`AGENT_ROOMS_PORT takes 0 to 65535, got "${envPort}"`);
    flags.port = Number(envPort);
  }
  const home = flags.home ?? defaultHome();
  // The core is loaded only to serve: connect, doctor, guard (a git hook), backup and open start without it.
  const { startCore } = await import('./start.js');
  const running = await startCore({ home, port: flags.port ?? DEFAULT_PORT, ownerName: flags.ownerName, rateLimit: flags.rateLimit, maxChain: flags.maxChain, wakeBudget: flags.wakeBudget, worktreesDir: flags.worktrees });
  // A large database is checked after the ready line; a failure stops the server (it closed itself).
  running.integrity.catch(async (err: Error) => {
    process.stderr.write(`agent-rooms: ${err.message}\n`);
    await running.close().catch(() => {});
    process.exit(err instanceof HomeError ? err.exitCode : 2);
  });
  let stopping = false;
  const stop = (sig: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`agent-rooms: ${sig}, shutting down\n`);
    running.close().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`agent-rooms: shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // The handlers are in place before the ready line: whoever reads it may stop us at once.
  const out = (s: string) => process.stdout.write(s + '\n');
  out(`home: ${home}`);
  out(`owner token: ${join(home, 'owner-token')} (keep it secret)`);
  out(`task worktrees: ${running.core.config.worktreesDir}`);
  out(`MCP URL: ${running.mcpUrl}  (hosts: ${running.mcpUrl}/claude-code, /codex, /gemini, /cursor)`);
  out(`UI login (one-time, 5 minutes): ${running.loginUrl()}`);
  out(`agent-rooms listening on ${running.baseUrl}`);
}

function open(flags: Flags) {
  const home = flags.home ?? defaultHome();
  const sj = join(home, 'server.json');
  if (!existsSync(sj)) throw new Error(`no running server found in ${home} (start it with: agent-rooms serve)`);
  const { port } = JSON.parse(readFileSync(sj, 'utf8')) as { port: number };
  const db = openDb(join(home, 'rooms.db'));
  try {
    const owner = primaryOwner(db);
    if (!owner) throw new Error('no primary owner yet');
    process.stdout.write(createLoginLink(db, `http://127.0.0.1:${port}`, owner.owner_id).url + '\n');
  } finally {
    db.close();
  }
}

async function main(argv: string[]) {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (cmd === 'guard') return guardCommand(rest);
  if (cmd === 'connect' || cmd === 'doctor') {
    process.exitCode = await (cmd === 'connect' ? connect(rest) : doctor(rest));
    return;
  }
  if (cmd === 'backup' || cmd === 'restore' || cmd === 'export') return runBackupCommand(cmd, rest, defaultHome());
  const flags = parseFlags(rest);
  if (cmd === 'serve') return serve(flags);
  if (cmd === 'open') return open(flags);
  throw new Error(`unknown command "${cmd}"\n\n${USAGE}`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  // A refused home has its own exit code (docs/backup.md "Start errors and exit codes").
  if ((err as NodeJS.ErrnoException)?.code === 'EADDRINUSE') {
    process.stderr.write(`agent-rooms: the port is in use by another program (${(err as Error).message}). Fix: choose another with --port N (0 picks a free one).\n`);
    process.exit(HOME_EXIT_CODES.PORT_IN_USE);
  }
  process.stderr.write(`agent-rooms: ${(err as Error).message}\n`);
  process.exit(err instanceof HomeError ? err.exitCode : 2);
});
