/**
 * Benchmark of the board: read_board on a room with 10,000 tasks in 50 lanes, and 50-way
 * claim_task contention, each beside a bare-echo baseline (the SDK's McpServer with one
 * `echo` tool over StreamableHTTPServerTransport on node:http, in this same process,
 * called the same way). Run: `npx tsx test/bench/tasks.ts`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, type TestAgent } from '../helpers/server.js';
import { startEchoBaseline, benchClient, tableWhenRun } from './baseline.js';
import { createTask, claimTask } from '../../src-main/core/tasks/service.js';

export interface BenchRow {
  bench: string;
  what: string;
  n: number;
  p50_ms: number;
  p99_ms: number;
  baseline_p50_ms: number;
  baseline_p99_ms: number;
}

const TASKS = 10_000;
const LANES = 50;
const BOARD_READS = 40;
const CLAIM_ROUNDS = 15;
const CONTENDERS = 50;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return Math.round(s[i]! * 100) / 100;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export async function runTasksBench(log: (line: string) => void = () => {}): Promise<BenchRow[]> {
  const s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
  const echo = await startEchoBaseline();
  const clients: Client[] = [];
  try {
    const { core } = s.running;
    const room = await s.room('Bench');
    const agents: TestAgent[] = [];
    for (let i = 0; i < LANES; i++) {
      const a = await s.agent(`Lane ${i}`);
      await s.join(room, a.plate);
      agents.push(a);
    }
    const ownerId = (await s.api('GET', '/v1/me')).body.owner_id as string;

    // Seed through the service layer, each lane's agent creating its own tasks (no wakes to queue).
    log(`seeding ${TASKS} tasks in ${LANES} lanes`);
    core.db.transaction(() => {
      for (let i = 0; i < TASKS; i++) {
        const a = agents[i % LANES]!;
        createTask(core, { kind: 'agent', plate: a.plate, ownerId, sessionId: 'seed' }, {
          roomId: room,
          title: `Task ${i}`,
          definitionOfDone: 'the bench says so',
          assignee: a.plate,
          detail: `Detail of task ${i}`,
          order: i % 7,
        });
      }
    })();
    // Some lanes are busy, as on a real board.
    const some = core.db.prepare('SELECT id, assignee FROM tasks WHERE room_id = ? LIMIT 500').all(room) as Array<{ id: string; assignee: string }>;
    for (const t of some.filter((_, i) => i % 5 === 0)) {
      claimTask(core, { kind: 'agent', plate: t.assignee, ownerId, sessionId: 'seed' }, t.id, 'seed-instance');
    }

    const reader = await s.connect(agents[0]!.credential);
    const echoClient = await benchClient(echo.url);
    clients.push(reader, echoClient);

    log('read_board');
    const first: any = await reader.callTool({ name: 'read_board', arguments: { room } });
    // The board is paged (docs/tasks.md): the default page counts every task and shows a few.
    const seen = first.structuredContent.lanes.reduce((n: number, l: any) => n + l.total, 0) + first.structuredContent.done_total;
    if (seen !== TASKS || first.structuredContent.lanes.length !== LANES) throw new Error(`board counts ${seen} tasks in ${first.structuredContent.lanes.length} lanes`);
    const board: number[] = [];
    const boardBase: number[] = [];
    for (let i = 0; i < BOARD_READS; i++) {
      board.push(await timed(() => reader.callTool({ name: 'read_board', arguments: { room } })));
      boardBase.push(await timed(() => echoClient.callTool({ name: 'echo', arguments: { message: 'x' } })));
    }

    log('claim contention');
    const contender = agents[1]!;
    const sessions = await Promise.all(Array.from({ length: CONTENDERS }, () => s.connect(contender.credential)));
    const echoSessions = await Promise.all(Array.from({ length: CONTENDERS }, () => benchClient(echo.url)));
    clients.push(...sessions, ...echoSessions);
    const claims: number[] = [];
    const claimsBase: number[] = [];
    for (let round = 0; round < CLAIM_ROUNDS; round++) {
      const t = createTask(core, { kind: 'agent', plate: contender.plate, ownerId, sessionId: 'seed' }, {
        roomId: room,
        title: `Contended ${round}`,
        definitionOfDone: 'one winner',
        assignee: contender.plate,
      });
      let winners = 0;
      claims.push(
        await timed(async () => {
          const rs: any[] = await Promise.all(sessions.map((c) => c.callTool({ name: 'claim_task', arguments: { task_id: t.task_id } })));
          winners = rs.filter((r) => !r.isError).length;
        }),
      );
      if (winners !== 1) throw new Error(`round ${round}: ${winners} winners`);
      claimsBase.push(await timed(() => Promise.all(echoSessions.map((c) => c.callTool({ name: 'echo', arguments: { message: 'x' } })))));
    }

    return [
      {
        bench: 'read_board',
        what: `${TASKS} tasks, ${LANES} lanes (default page)`,
        n: BOARD_READS,
        p50_ms: pct(board, 50),
        p99_ms: pct(board, 99),
        baseline_p50_ms: pct(boardBase, 50),
        baseline_p99_ms: pct(boardBase, 99),
      },
      {
        bench: 'claim_task x50',
        what: `${CONTENDERS} sessions, time until all claims resolved`,
        n: CLAIM_ROUNDS,
        p50_ms: pct(claims, 50),
        p99_ms: pct(claims, 99),
        baseline_p50_ms: pct(claimsBase, 50),
        baseline_p99_ms: pct(claimsBase, 99),
      },
    ];
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await echo.close();
    await s.stop();
  }
}

tableWhenRun(import.meta.url, runTasksBench);
