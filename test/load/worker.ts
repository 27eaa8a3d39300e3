/**
 * One load-generating agent, run as a child process by the crash supervisor (crash.ts):
 * `node --import tsx test/load/worker.ts`, or its bundle of the test run (test/helpers/cli-bundle.ts),
 * with its job in LOAD_WORKER (JSON).
 *
 * It loops: send a message (every third mentions the listener), create, claim and complete
 * a task, write a file — every write with an idempotency key. Any transport failure (the
 * server was SIGKILLed, the session is gone after a restart) makes it reconnect and retry
 * the very same call with the very same key. Each acknowledged write is printed to stdout as
 * one JSON line for the supervisor's ledger. It stops after finishing an iteration once the
 * stop file exists.
 */
import { existsSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface WorkerJob {
  worker: number;
  url: string;
  credential: string;
  room: string;
  plate: string;
  listener: string;
  stopFile: string;
  tools: string[];
  maxIterations: number;
}

export type Ack =
  | { op: 'msg'; key: string; id: string; body: string; mention: boolean; attempts: number }
  | { op: 'task'; key: string; id: string; title: string; attempts: number }
  | { op: 'claim'; id: string; attempts: number }
  | { op: 'done'; id: string; notes: string; attempts: number; certain: boolean }
  | { op: 'file'; key: string; path: string; sha256: string; size: number; file_id: string; attempts: number }
  | { op: 'error'; what: string; detail: string }
  | { op: 'finished'; iterations: number; reconnects: number };

const job = JSON.parse(process.env.LOAD_WORKER ?? '{}') as WorkerJob;
const emit = (a: Ack): void => {
  process.stdout.write(JSON.stringify(a) + '\n');
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let client: Client | undefined;
let reconnects = 0;

async function connect(): Promise<Client> {
  for (;;) {
    const c = new Client({ name: `load-worker-${job.worker}`, version: '1.0.0' });
    try {
      await c.connect(new StreamableHTTPClientTransport(new URL(job.url), { requestInit: { headers: { authorization: `Bearer ${job.credential}` } } }));
      return c;
    } catch {
      await c.close().catch(() => {});
      await sleep(100);
    }
  }
}

interface ToolOutcome {
  ok: boolean;
  body: any;
  attempts: number;
}

/**
 * Calls a tool until the server answers: transport failures reconnect and retry the same
 * arguments; retryable tool errors wait and retry. Returns the first real answer.
 */
async function callUntilAnswered(name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
  for (let attempt = 1; ; attempt++) {
    if (attempt > 400) throw new Error(`${name}: no answer after 400 attempts`);
    client ??= await connect();
    let r: any;
    try {
      r = await client.callTool({ name, arguments: args }, undefined, { timeout: 10_000 });
    } catch {
      await client.close().catch(() => {});
      client = undefined;
      reconnects++;
      await sleep(50);
      continue;
    }
    if (r.isError) {
      const e = r.structuredContent?.error;
      if (e?.retryable) {
        await sleep(Math.min(1000, e.retry_after_ms ?? 100));
        continue;
      }
      return { ok: false, body: e, attempts: attempt };
    }
    return { ok: true, body: r.structuredContent, attempts: attempt };
  }
}

const has = (t: string) => job.tools.includes(t);

async function iteration(i: number): Promise<void> {
  const w = job.worker;
  const mention = i % 3 === 0;
  const body = `w${w} m${i}`;
  const m = await callUntilAnswered('send_message', {
    room: job.room,
    body,
    idempotency_key: `w${w}-m${i}`,
    ...(mention ? { mention_targets: [job.listener] } : {}),
  });
  if (!m.ok) return emit({ op: 'error', what: 'send_message', detail: JSON.stringify(m.body) });
  emit({ op: 'msg', key: `w${w}-m${i}`, id: m.body.message_id, body, mention, attempts: m.attempts });

  if (has('create_task') && has('claim_task') && has('complete_task')) {
    const title = `w${w} t${i}`;
    const t = await callUntilAnswered('create_task', {
      room: job.room,
      title,
      definition_of_done: 'the load test says so',
      assignee: job.plate,
      idempotency_key: `w${w}-t${i}`,
    });
    if (!t.ok) return emit({ op: 'error', what: 'create_task', detail: JSON.stringify(t.body) });
    const taskId: string = t.body.task_id ?? t.body.task?.task_id;
    emit({ op: 'task', key: `w${w}-t${i}`, id: taskId, title, attempts: t.attempts });
    // A stable instance id: a claim retried from a new session after a restart is the same instance.
    const c = await callUntilAnswered('claim_task', { task_id: taskId, instance_id: `load-w${w}` });
    if (!c.ok) return emit({ op: 'error', what: 'claim_task', detail: JSON.stringify(c.body) });
    emit({ op: 'claim', id: taskId, attempts: c.attempts });
    const notes = `handoff from w${w} t${i}`;
    const d = await callUntilAnswered('complete_task', { task_id: taskId, status: 'done', handoff_notes: notes, summary: 'ok' });
    if (d.ok) emit({ op: 'done', id: taskId, notes, attempts: d.attempts, certain: true });
    // A retried completion may find its own first attempt committed: the check reads the row.
    else if (d.attempts > 1) emit({ op: 'done', id: taskId, notes, attempts: d.attempts, certain: false });
    else return emit({ op: 'error', what: 'complete_task', detail: JSON.stringify(d.body) });
  }

  if (has('write_file')) {
    const bytes = randomBytes(256 + ((i * 7919 + w * 104729) % 16_000));
    const path = `load/w${w}/f${i}.bin`;
    const f = await callUntilAnswered('write_file', {
      room: job.room,
      path,
      content: bytes.toString('base64'),
      encoding: 'base64',
      idempotency_key: `w${w}-f${i}`,
    });
    if (!f.ok) return emit({ op: 'error', what: 'write_file', detail: JSON.stringify(f.body) });
    emit({
      op: 'file',
      key: `w${w}-f${i}`,
      path,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size: bytes.length,
      file_id: f.body.file_id,
      attempts: f.attempts,
    });
  }
}

async function main() {
  let i = 0;
  while (i < job.maxIterations && !existsSync(job.stopFile)) {
    await iteration(i);
    i++;
  }
  emit({ op: 'finished', iterations: i, reconnects });
  await client?.close().catch(() => {});
  process.exit(0);
}

main().catch((err: unknown) => {
  emit({ op: 'error', what: 'worker', detail: String((err as Error)?.stack ?? err) });
  process.exit(1);
});
