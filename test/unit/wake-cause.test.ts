// A failed wake's one-line cause (src-main/core/wakes/cause.ts, docs/wakes.md "A failed wake's
// cause"), on what the pinned host CLIs really print when their model cannot be reached
// (test/fixtures/host-errors/README.md) and on a real spawn of a command that does not exist.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { CAUSE_CHARS, lastErrorLine, wakeCause } from '../../src-main/core/wakes/cause.js';
import { notFoundReason, outcomeReason } from '../../src-main/core/wakes/runner-run.js';
import { runProcess, TAIL_BYTES } from '../../src-main/core/wakes/runners.js';
import { withoutRunOutput } from '../../src-main/core/wakes/store.js';

/** The end of a capture, as a runner's kept tail holds it. */
function tail(name: string): string {
  const b = readFileSync(new URL(`../fixtures/host-errors/${name}`, import.meta.url));
  return b.subarray(Math.max(0, b.length - TAIL_BYTES)).toString('utf8');
}

const exited = (extra: { stderr_tail?: string; stdout_tail?: string }) => ({ status: 'failed' as const, reason: 'the runner exited with code 1', exit_code: 1, ...extra });

describe('the cause of a failed wake', () => {
  it('Claude Code against a closed port: the model could not be reached (its api_retry events, not "unknown")', () => {
    const cause = wakeCause(exited({ stdout_tail: tail('claude-closed-port.stdout'), stderr_tail: '' }))!;
    expect(cause).toMatch(/^the model's API could not be reached \(exited with code 1\): connection error: the API request got no answer \(attempt \d+ of 10\)$/);
  });

  it('Codex without network: its last log line without timestamp and module', () => {
    const cause = wakeCause(exited({ stderr_tail: tail('codex-no-network.stderr'), stdout_tail: tail('codex-no-network.stdout') }))!;
    expect(cause).toBe("the model's API could not be reached (exited with code 1): failed to connect to Responses WebSocket stage=Unknown");
  });

  it('Codex stdout alone: its last error event', () => {
    expect(lastErrorLine(tail('codex-no-network.stdout'))).toBe('Reconnecting... waiting for network (Connection failed: error sending request)');
  });

  it('Gemini CLI against a closed port: the error line, never a stack frame', () => {
    const t = tail('gemini-closed-port.stderr');
    expect(t.trimEnd().split('\n').at(-1)).toMatch(/^\s+at /);
    const cause = wakeCause(exited({ stderr_tail: t }))!;
    expect(cause).toMatch(/^the model's API could not be reached \(exited with code 1\): Attempt \d+ failed\. Retrying with backoff\.\.\. Error: exception TypeError: fetch failed sending request$/);
    expect(cause).not.toMatch(/chunk-|file:\/\//);
  });

  it('an exit code with a Node error: the error line, not the frames after it', () => {
    const stderr = "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/srv/agent.js'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)\n    at node:internal/main/run_main_module:28:49 {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}\n\nNode.js v22.11.0\n";
    expect(wakeCause(exited({ stderr_tail: stderr }))).toBe("the runner exited with code 1: Error: Cannot find module '/srv/agent.js'");
  });

  it('ENOENT: which command, the PATH it was looked for on, and the fix', async () => {
    const path = '/usr/local/bin:/usr/bin:/bin';
    const o = await runProcess({ command: 'no-such-host-cli-h3', args: [], cwd: tmpdir(), env: { PATH: path }, stdin: '', timeoutMs: 10_000, secrets: [] }).done;
    expect(o.spawnError).toBe('ENOENT');
    const { handled, reason } = outcomeReason(o, 10_000, { command: 'no-such-host-cli-h3', path });
    expect(handled).toBe(false);
    expect(reason).toContain('(ENOENT)');
    expect(wakeCause({ status: 'failed', reason, exit_code: null })).toBe(
      "`no-such-host-cli-h3` was not found on the server's PATH (/usr/local/bin:/usr/bin:/bin); install it or set the runner's command to its full path",
    );
    expect(wakeCause({ status: 'failed', reason: notFoundReason('/opt/claude/bin/claude', path) })).toBe("/opt/claude/bin/claude does not exist on the server; install it there or correct the runner's command");
  });

  it('a long PATH is cut in its middle, never the fix, and the cause stays one bounded line', () => {
    const path = Array.from({ length: 40 }, (_x, i) => `/opt/tool-${i}/bin`).join(':');
    const cause = wakeCause({ status: 'failed', reason: notFoundReason('claude', path) })!;
    expect(cause.length).toBeLessThanOrEqual(CAUSE_CHARS);
    expect(cause).toMatch(/^`claude` was not found on the server's PATH \(\/opt\/tool-0\/bin:.*….*\); install it or set the runner's command to its full path$/);
    const long = wakeCause(exited({ stderr_tail: `Error: ${'y'.repeat(5000)}\nmore\n` }))!;
    expect(long.length).toBeLessThanOrEqual(CAUSE_CHARS);
    expect(long).not.toContain('\n');
  });

  it('secrets this server issues are masked in the quoted line', () => {
    const cause = wakeCause(exited({ stderr_tail: 'Error: 401 Unauthorized for ark_AbCdEfGhIjKlMnOpQrStUvWxYz012345\n' }))!;
    expect(cause).toContain('ark_***');
    expect(cause).not.toContain('AbCdEfGh');
  });

  it('a reader without the tails gets a cause that quotes no output', () => {
    const w = { status: 'failed' as const, reason: 'the runner exited with code 1', exit_code: 1, stderr_tail: 'Error: secret-ish internal detail\n' as string | null, stdout_tail: '' as string | null, cause: null as string | null };
    w.cause = wakeCause(w);
    expect(w.cause).toContain('secret-ish');
    withoutRunOutput(w);
    expect(w.cause).toBe('the runner exited with code 1');
    expect(w.stderr_tail).toBeNull();
  });

  it('only a failed wake has a cause; other reasons give their first clause', () => {
    expect(wakeCause({ status: 'handled', reason: 'the runner exited 0 without a single tool call back' })).toBeNull();
    expect(wakeCause({ status: 'failed', reason: null })).toBeNull();
    expect(wakeCause({ status: 'failed', reason: 'stopped by alice; requeued as wake_x' })).toBe('stopped by alice');
    expect(wakeCause({ status: 'failed', reason: 'the runner timed out after 600000 ms', stderr_tail: '' })).toBe('the runner timed out after 600000 ms');
  });
});

describe('a failed wake’s reason code (cause.ts wakeReasonCode)', () => {
  it('a wake whose task moved on before it ran has a code; faults and other statuses have none', async () => {
    const { wakeReasonCode } = await import('../../src-main/core/wakes/cause.js');
    expect(wakeReasonCode({ status: 'failed', reason: 'the task is already done' })).toBe('task_done');
    expect(wakeReasonCode({ status: 'failed', reason: 'the task is already cancelled' })).toBe('task_cancelled');
    expect(wakeReasonCode({ status: 'failed', reason: 'the task no longer exists' })).toBe('task_gone');
    expect(wakeReasonCode({ status: 'failed', reason: 'the task was reassigned to another agent' })).toBe('task_reassigned');
    expect(wakeReasonCode({ status: 'failed', reason: 'the task was archived' })).toBe('task_archived');
    // A fault keeps no code, even one that mentions a task; nor does a wake that did not fail.
    expect(wakeReasonCode({ status: 'failed', reason: 'the runner exited with code 1: the task is already done' })).toBeNull();
    expect(wakeReasonCode({ status: 'failed', reason: 'constructor' })).toBeNull();
    expect(wakeReasonCode({ status: 'handled', reason: 'the task is already done' })).toBeNull();
    expect(wakeReasonCode({ status: 'failed', reason: null })).toBeNull();
  });
});
