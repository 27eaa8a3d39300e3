/**
 * Crash-recovery run: load-generating MCP clients in child processes (worker.ts) write
 * through the server while this supervisor SIGKILLs it at random moments and restarts it on
 * the same home and the same port. Afterwards it checks, from the database and the blob
 * store, that every acknowledged write is present exactly once, no task is in an impossible
 * state, every file's bytes match their sha256, SQLite is intact, and every wake exists once
 * and ran at most once.
 *
 * Used by test/integration/load-crash.test.ts (short) and test/load/run-crash.ts (long).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { spawnServer, type ChildServer } from '../helpers/child.js';
import { scriptArgs } from '../helpers/cli-bundle.js';
import type { Ack, WorkerJob } from './worker.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CrashOptions {
  workers: number;
  kills: number;
  /** Random pause between a restart and the next kill. */
  minGapMs: number;
  maxGapMs: number;
  /** Upper bound of iterations per worker (a safety net; the stop file ends the run). */
  maxIterations?: number;
  log?: (line: string) => void;
  keepHome?: boolean;
}

export interface CrashReport {
  kills: number;
  restartsMs: number[];
  acked: Record<string, number>;
  retriedAcks: number;
  reconnects: number;
  messages: number;
  tasks: { total: number; done: number; byStatus: Record<string, number> };
  files: number;
  wakes: { total: number; byStatus: Record<string, number>; sinkLines: number };
  /** Every broken promise found; empty means the run proved what it should. */
  violations: string[];
  durationMs: number;
  /** How long each step of the run took, in order (where a run's time goes). */
  phasesMs?: Record<string, number>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function api(base: string, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json().catch(() => ({}))) as any;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runCrashRecovery(opts: CrashOptions): Promise<CrashReport> {
  const started = Date.now();
  const log = opts.log ?? (() => {});
  const home = mkdtempSync(join(tmpdir(), 'agent-rooms-crash-'));
  const stopFile = join(home, 'STOP-LOAD');
  const sinkFile = join(home, 'wake-sink.jsonl');
  writeFileSync(sinkFile, '');
  const port = await freePort();
  const serverArgs = ['--port', String(port), '--rate-limit', '0'];
  const phasesMs: Record<string, number> = {};
  let phaseStart = started;
  const phase = (name: string) => {
    phasesMs[name] = Date.now() - phaseStart;
    phaseStart = Date.now();
  };
  let server: ChildServer = await spawnServer(home, serverArgs);
  phase('server started');
  const base = server.baseUrl;
  const token = server.ownerToken;
  const violations: string[] = [];
  const restartsMs: number[] = [];
  const workers: ChildProcess[] = [];
  try {
    // The cast: one room, one agent per worker, and a listener agent whose runner logs each wake it runs.
    const room = (await api(base, token, 'POST', '/v1/rooms', { name: 'Crash room' })).room_id as string;
    const listener = await api(base, token, 'POST', '/v1/agents', { name: 'Listener' });
    await api(base, token, 'POST', `/v1/rooms/${room}/members`, { plate: listener.plate });
    let runnerSet = true;
    try {
      await api(base, token, 'PUT', `/v1/agents/${listener.plate}/runners/codex`, {
        command: '/bin/sh',
        args: ['-c', 'printf "%s\\n" "$AGENT_ROOMS_WAKE" >> "$WAKE_SINK"'],
        env: { WAKE_SINK: sinkFile },
        timeout_ms: 20_000,
      });
    } catch {
      runnerSet = false; // the wakes capability is not there yet: wakes stay in the inbox
    }
    const agents: Array<{ plate: string; credential: string }> = [];
    for (let w = 0; w < opts.workers; w++) {
      const a = await api(base, token, 'POST', '/v1/agents', { name: `Loader ${w}` });
      const c = await api(base, token, 'POST', `/v1/agents/${a.plate}/credentials`, { device: `load-${w}` });
      await api(base, token, 'POST', `/v1/rooms/${room}/members`, { plate: a.plate });
      agents.push({ plate: a.plate, credential: c.credential });
    }
    const tools = await listTools(base, agents[0]!.credential);
    phase('cast');
    log(`crash run: ${opts.workers} workers on port ${port}; tools: ${tools.filter((t) => /send_message|_task|write_file/.test(t)).join(', ')}`);

    // The load.
    const acks: Ack[] = [];
    const exits: Array<Promise<number | null>> = [];
    for (let w = 0; w < opts.workers; w++) {
      const job: WorkerJob = {
        worker: w,
        url: `${base}/mcp`,
        credential: agents[w]!.credential,
        room,
        plate: agents[w]!.plate,
        listener: listener.handle ?? listener.plate,
        stopFile,
        tools,
        maxIterations: opts.maxIterations ?? 10_000,
      };
      const p = spawn(process.execPath, scriptArgs('load-worker'), {
        cwd: ROOT,
        env: { ...process.env, LOAD_WORKER: JSON.stringify(job) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      workers.push(p);
      let buf = '';
      p.stdout!.on('data', (d: Buffer) => {
        buf += d.toString();
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          try {
            acks.push(JSON.parse(line) as Ack);
          } catch {
            // not a ledger line
          }
        }
      });
      let err = '';
      p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      exits.push(
        new Promise((r) =>
          p.once('exit', (code) => {
            if (code !== 0) violations.push(`worker ${w} exited ${code}: ${err.slice(-500)}`);
            r(code);
          }),
        ),
      );
    }

    // The faults: SIGKILL at a random moment, restart on the same home and port, repeat.
    let kills = 0;
    const gap = () => opts.minGapMs + Math.random() * (opts.maxGapMs - opts.minGapMs);
    // Kill only once every worker is writing, so that each kill lands on calls in flight.
    const warm = Date.now() + 30_000;
    const writing = () => new Set(acks.flatMap((a) => (a.op === 'msg' ? [a.key.split('-')[0]] : []))).size;
    while (writing() < opts.workers && Date.now() < warm) await sleep(50);
    phase('every worker writing');
    await sleep(gap());
    while (kills < opts.kills) {
      await server.kill();
      kills++;
      const t0 = Date.now();
      server = await spawnServer(home, serverArgs);
      restartsMs.push(Date.now() - t0);
      log(`kill ${kills}: restarted in ${restartsMs.at(-1)} ms, ${acks.length} acks so far`);
      await sleep(gap());
    }
    phase('kills');
    writeFileSync(stopFile, '');
    await Promise.race([Promise.all(exits), sleep(60_000).then(() => violations.push('workers did not finish within 60 s after stop'))]);

    // Let queued wakes drain, then stop cleanly and inspect the files on disk.
    phase('workers finished');
    if (runnerSet) await waitForWakes(home, 30_000);
    phase('wakes drained');
    await server.stop();
    phase('stopped');

    const report = verify(home, acks, violations);
    phase('verified');
    report.phasesMs = phasesMs;
    report.kills = kills;
    report.restartsMs = restartsMs;
    report.durationMs = Date.now() - started;
    if (!runnerSet) report.violations.push('(note) no runner could be configured: wakes were checked in the inbox only');
    return report;
  } finally {
    for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
    if (server.proc.exitCode === null) await server.kill();
    if (!opts.keepHome) rmSync(home, { recursive: true, force: true });
    else log(`home kept: ${home}`);
  }
}

async function listTools(base: string, credential: string): Promise<string[]> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const c = new Client({ name: 'crash-supervisor', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${credential}` } } }));
  const names = (await c.listTools()).tools.map((t) => t.name);
  await c.close();
  return names;
}

async function waitForWakes(home: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const db = new Database(join(home, 'rooms.db'), { readonly: true, fileMustExist: true });
  try {
    while (Date.now() < deadline) {
      const n = (db.prepare("SELECT COUNT(*) AS n FROM wakes WHERE status IN ('queued', 'running') AND COALESCE(target, '') <> 'pull'").get() as { n: number }).n;
      if (n === 0) return;
      await sleep(200);
    }
  } finally {
    db.close();
  }
}

function verify(home: string, acks: Ack[], violations: string[]): CrashReport {
  const db = new Database(join(home, 'rooms.db'), { readonly: true, fileMustExist: true });
  const v = (s: string) => violations.push(s);
  const acked: Record<string, number> = {};
  for (const a of acks) acked[a.op] = (acked[a.op] ?? 0) + 1;
  for (const a of acks) if (a.op === 'error') v(`a worker hit a non-retryable error: ${a.what} ${a.detail.slice(0, 300)}`);
  const retriedAcks = acks.filter((a) => 'attempts' in a && a.attempts > 1).length;
  const reconnects = acks.reduce((n, a) => n + (a.op === 'finished' ? a.reconnects : 0), 0);
  const tableExists = (t: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(t) !== undefined;
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') v(`integrity_check: ${String(integrity)}`);
    const fk = db.pragma('foreign_key_check') as unknown[];
    if (fk.length) v(`foreign_key_check: ${fk.length} violations`);

    // Messages: each acknowledged one exists exactly once, under the id the client was given.
    const msgs = acks.filter((a): a is Extract<Ack, { op: 'msg' }> => a.op === 'msg');
    const byBody = db.prepare('SELECT id FROM messages WHERE body = ?');
    for (const m of msgs) {
      const rows = byBody.all(m.body) as Array<{ id: string }>;
      if (rows.length !== 1) v(`message ${m.key}: ${rows.length} copies`);
      else if (rows[0]!.id !== m.id) v(`message ${m.key}: acknowledged as ${m.id}, stored as ${rows[0]!.id}`);
    }
    const totalMsgs = (db.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n;
    const dupBodies = db.prepare('SELECT body, COUNT(*) AS n FROM messages GROUP BY body HAVING n > 1').all() as Array<{ body: string }>;
    for (const d of dupBodies) v(`message body stored twice: ${d.body}`);
    const seqGaps = db.prepare('SELECT room_id, COUNT(*) AS n, MAX(seq) - MIN(seq) + 1 AS span FROM messages GROUP BY room_id').all() as Array<{ n: number; span: number }>;
    for (const g of seqGaps) if (g.n !== g.span) v(`message seq has gaps or repeats: ${g.n} messages over ${g.span} seqs`);

    // Tasks: each acknowledged one exists once; none is in an impossible state.
    const tasksReport = { total: 0, done: 0, byStatus: {} as Record<string, number> };
    if (tableExists('tasks')) {
      for (const t of acks.filter((a): a is Extract<Ack, { op: 'task' }> => a.op === 'task')) {
        const rows = db.prepare('SELECT id FROM tasks WHERE title = ?').all(t.title) as Array<{ id: string }>;
        if (rows.length !== 1) v(`task ${t.key}: ${rows.length} copies`);
        else if (rows[0]!.id !== t.id) v(`task ${t.key}: acknowledged as ${t.id}, stored as ${rows[0]!.id}`);
      }
      const get = db.prepare('SELECT status, handoff_notes, lease_instance_id FROM tasks WHERE id = ?');
      for (const d of acks.filter((a): a is Extract<Ack, { op: 'done' }> => a.op === 'done')) {
        const row = get.get(d.id) as { status: string; handoff_notes: string | null } | undefined;
        if (!row || row.status !== 'done' || row.handoff_notes !== d.notes) v(`task ${d.id}: completion acknowledged but row is ${JSON.stringify(row)}`);
      }
      for (const c of acks.filter((a): a is Extract<Ack, { op: 'claim' }> => a.op === 'claim')) {
        const row = get.get(c.id) as { status: string } | undefined;
        if (!row || (row.status !== 'doing' && row.status !== 'done')) v(`task ${c.id}: claim acknowledged but status is ${row?.status}`);
      }
      const impossible = db
        .prepare(
          `SELECT id, status FROM tasks WHERE
             (status = 'doing' AND (lease_instance_id IS NULL OR lease_renewed_at IS NULL))
          OR (status <> 'doing' AND lease_instance_id IS NOT NULL)
          OR (status = 'done' AND (handoff_notes IS NULL OR completed_at IS NULL))`,
        )
        .all() as Array<{ id: string; status: string }>;
      for (const t of impossible) v(`task ${t.id} in an impossible state (${t.status})`);
      const dupTitles = db.prepare('SELECT title, COUNT(*) AS n FROM tasks GROUP BY title HAVING n > 1').all() as Array<{ title: string }>;
      for (const d of dupTitles) v(`task created twice: ${d.title}`);
      for (const r of db.prepare('SELECT status, COUNT(*) AS n FROM tasks GROUP BY status').all() as Array<{ status: string; n: number }>) {
        tasksReport.byStatus[r.status] = r.n;
        tasksReport.total += r.n;
      }
      tasksReport.done = tasksReport.byStatus.done ?? 0;
    }

    // Files: each acknowledged write is one version whose blob hashes to what the client sent.
    let files = 0;
    if (tableExists('file_versions')) {
      const q = db.prepare(
        `SELECT fv.version, fv.sha256, fv.size_bytes, fv.status FROM files f JOIN file_versions fv ON fv.file_id = f.id WHERE f.path = ?`,
      );
      for (const f of acks.filter((a): a is Extract<Ack, { op: 'file' }> => a.op === 'file')) {
        const rows = q.all(f.path) as Array<{ sha256: string; size_bytes: number; status: string }>;
        if (rows.length !== 1) v(`file ${f.path}: ${rows.length} versions for one keyed write`);
        else if (rows[0]!.sha256 !== f.sha256 || rows[0]!.size_bytes !== f.size || rows[0]!.status !== 'ready')
          v(`file ${f.path}: row ${JSON.stringify(rows[0])} does not match the write`);
      }
      for (const r of db.prepare("SELECT sha256, size_bytes FROM file_versions WHERE status = 'ready'").all() as Array<{ sha256: string; size_bytes: number }>) {
        files++;
        const p = join(home, 'blobs', r.sha256.slice(0, 2), r.sha256);
        if (!existsSync(p)) {
          v(`blob ${r.sha256} missing`);
          continue;
        }
        const bytes = readFileSync(p);
        if (bytes.length !== r.size_bytes || createHash('sha256').update(bytes).digest('hex') !== r.sha256) v(`blob ${r.sha256} does not match its sha256/size`);
      }
    }

    // Wakes: one per mention message (none lost, none doubled); the runner ran each at most once.
    const wakesReport = { total: 0, byStatus: {} as Record<string, number>, sinkLines: 0 };
    const mentionMsgs = msgs.filter((m) => m.mention);
    const wakeOf = db.prepare("SELECT id, status FROM wakes WHERE message_id = ? AND trigger = 'mention'");
    const inboxOf = tableExists('mentions') ? db.prepare('SELECT COUNT(*) AS n FROM mentions WHERE message_id = ?') : undefined;
    for (const m of mentionMsgs) {
      const w = wakeOf.all(m.id) as Array<{ id: string; status: string }>;
      if (w.length !== 1) v(`mention ${m.key}: ${w.length} wakes`);
      if (inboxOf && (inboxOf.get(m.id) as { n: number }).n !== 1) v(`mention ${m.key}: inbox item count is not 1`);
    }
    for (const r of db.prepare('SELECT status, COUNT(*) AS n FROM wakes GROUP BY status').all() as Array<{ status: string; n: number }>) {
      wakesReport.byStatus[r.status] = r.n;
      wakesReport.total += r.n;
    }
    const sink = readFileSync(join(home, 'wake-sink.jsonl'), 'utf8').split('\n').filter(Boolean);
    wakesReport.sinkLines = sink.length;
    const runs = new Map<string, number>();
    for (const line of sink) {
      try {
        const id = (JSON.parse(line) as { wake_id: string }).wake_id;
        runs.set(id, (runs.get(id) ?? 0) + 1);
      } catch {
        v(`runner log line is not an envelope: ${line.slice(0, 100)}`);
      }
    }
    for (const [id, n] of runs) if (n > 1) v(`wake ${id} ran ${n} times`);
    const handled = db.prepare("SELECT id FROM wakes WHERE status = 'handled'").all() as Array<{ id: string }>;
    for (const h of handled) if (!runs.has(h.id)) v(`wake ${h.id} is handled but its runner never ran`);
    // Lost: a wake that was queued for a runner and never dispatched, even after the queue had time to drain.
    const lost = db.prepare("SELECT COUNT(*) AS n FROM wakes WHERE status = 'queued' AND COALESCE(target, '') <> 'pull'").get() as { n: number };
    if (lost.n) v(`${lost.n} wakes still queued for a runner after the queue drained`);
    const stuck = db.prepare("SELECT COUNT(*) AS n FROM wakes WHERE status = 'running'").get() as { n: number };
    if (stuck.n) v(`${stuck.n} wakes still running after a clean stop`);
    const silent = db.prepare("SELECT COUNT(*) AS n FROM wakes WHERE status = 'failed' AND (reason IS NULL OR reason = '')").get() as { n: number };
    if (silent.n) v(`${silent.n} failed wakes without a reason`);

    return {
      kills: 0,
      restartsMs: [],
      acked,
      retriedAcks,
      reconnects,
      messages: totalMsgs,
      tasks: tasksReport,
      files,
      wakes: wakesReport,
      violations,
      durationMs: 0,
    };
  } finally {
    db.close();
  }
}
