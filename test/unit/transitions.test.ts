import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { decide, TASK_STATUSES, TRANSITIONS, type Facts, type TaskStatus } from '../../src-main/core/tasks/transitions.js';

const agent = (status: TaskStatus, extra: Partial<Facts> = {}): Facts => ({ actor: 'agent', status, isAssignee: true, openDeps: 0, ...extra });
const human = (status: TaskStatus, humanAllowed: boolean): Facts => ({ actor: 'human', status, isAssignee: false, humanAllowed });

function reason(trigger: Parameters<typeof decide>[0], f: Facts): string | undefined {
  const d = decide(trigger, f);
  return d.ok ? undefined : d.reject.reason;
}
function to(trigger: Parameters<typeof decide>[0], f: Facts): TaskStatus | undefined {
  const d = decide(trigger, f);
  return d.ok ? d.to : undefined;
}

describe('task transition table (docs/contract.md "Tasks"), row by row', () => {
  it('todo | running receipt | task assigned to the agent -> doing', () => {
    expect(to('running_receipt', { ...agent('todo'), actor: 'server' })).toBe('doing');
    expect(decide('running_receipt', { ...agent('todo'), actor: 'server', isAssignee: false }).ok).toBe(false);
    for (const s of TASK_STATUSES.filter((x) => x !== 'todo')) expect(decide('running_receipt', { ...agent(s), actor: 'server' }).ok).toBe(false);
  });

  it('todo | claim_task | caller is the assignee, no open prerequisite -> doing', () => {
    expect(to('claim_task', agent('todo'))).toBe('doing');
  });

  it('todo | claim_task | plate differs from assignee -> stays todo, not_assigned', () => {
    const d = decide('claim_task', agent('todo', { isAssignee: false }));
    expect(d.ok).toBe(false);
    if (!d.ok) expect([d.reject.code, d.reject.reason]).toEqual(['FORBIDDEN', 'not_assigned']);
  });

  it('todo or doing | claim_task | another instance holds it -> unchanged, already_claimed (do not retry)', () => {
    const d = decide('claim_task', agent('doing', { heldByOtherInstance: true }));
    expect(d.ok).toBe(false);
    if (!d.ok) {
      expect([d.reject.code, d.reject.reason, d.reject.retryable]).toEqual(['CONFLICT', 'already_claimed', false]);
      expect(d.reject.message).toMatch(/do not retry/);
    }
  });

  it('todo | claim_task | some depends_on task not done -> unchanged, blocked_by_deps', () => {
    expect(reason('claim_task', agent('todo', { openDeps: 2 }))).toBe('blocked_by_deps');
  });

  it('doing | complete_task done | handoff_notes present -> done', () => {
    expect(to('complete_task', agent('doing', { target: 'done', hasHandoffNotes: true }))).toBe('done');
  });

  it('doing | complete_task done | handoff_notes missing -> unchanged, rejected', () => {
    expect(reason('complete_task', agent('doing', { target: 'done', hasHandoffNotes: false }))).toBe('handoff_notes_required');
  });

  it('doing | complete_task blocked or failed -> blocked or failed', () => {
    expect(to('complete_task', agent('doing', { target: 'blocked' }))).toBe('blocked');
    expect(to('complete_task', agent('doing', { target: 'failed' }))).toBe('failed');
  });

  it('doing | set_status blocked, failed or todo -> that status', () => {
    for (const s of ['blocked', 'failed', 'todo'] as const) expect(to('set_status', agent('doing', { target: s }))).toBe(s);
  });

  it('any | set_status done -> unchanged, 409 CONFLICT use complete_task', () => {
    for (const s of TASK_STATUSES) {
      const d = decide('set_status', agent(s, { target: 'done' }));
      expect(d.ok).toBe(false);
      if (!d.ok) {
        expect(d.reject.code).toBe('CONFLICT');
        expect(d.reject.message).toMatch(/use complete_task/);
      }
    }
  });

  it('doing | release_task | self-release or admin force-release -> todo', () => {
    expect(to('release_task', agent('doing'))).toBe('todo');
    expect(to('release_task', human('doing', true))).toBe('todo');
    expect(reason('release_task', human('doing', false))).toBe('not_room_admin');
    expect(reason('release_task', agent('doing', { isAssignee: false }))).toBe('not_assigned');
  });

  it('any | cancellation | human board action -> cancelled', () => {
    for (const s of TASK_STATUSES) expect(to('cancel', human(s, true))).toBe('cancelled');
  });

  it('any | reassignment | human-only -> unchanged status', () => {
    for (const s of TASK_STATUSES) expect(to('reassign', human(s, true))).toBe(s);
    expect(reason('reassign', human('todo', false))).toBe('not_room_admin');
  });
});

describe('rules', () => {
  it('rule 1: set_status accepts only todo, blocked, failed as the target', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TASK_STATUSES), fc.constantFrom(...TASK_STATUSES), (from, target) => {
        const d = decide('set_status', agent(from, { target }));
        if (d.ok) expect(['todo', 'blocked', 'failed']).toContain(d.to);
      }),
    );
  });

  it('rule 2: the only ways into doing are the running receipt and claim_task; into done only complete_task', () => {
    const triggers = ['running_receipt', 'claim_task', 'complete_task', 'set_status', 'release_task', 'cancel', 'reassign'] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...triggers),
        fc.record({
          actor: fc.constantFrom('agent' as const, 'human' as const, 'server' as const),
          status: fc.constantFrom(...TASK_STATUSES),
          isAssignee: fc.boolean(),
          heldByOtherInstance: fc.boolean(),
          openDeps: fc.nat(3),
          target: fc.constantFrom(...TASK_STATUSES),
          hasHandoffNotes: fc.boolean(),
          humanAllowed: fc.boolean(),
        }),
        (trigger, f) => {
          const d = decide(trigger, f);
          if (!d.ok || d.to === f.status) return;
          if (d.to === 'doing') expect(['running_receipt', 'claim_task']).toContain(trigger);
          if (d.to === 'done') {
            expect(trigger).toBe('complete_task');
            expect(f.hasHandoffNotes).toBe(true);
          }
        },
      ),
    );
  });

  it('rule 3: no row releases or moves a task without an explicit act, and no agent but the assignee moves it', () => {
    for (const row of TRANSITIONS) expect(row.trigger).not.toMatch(/expire|timeout|auto/);
    fc.assert(
      fc.property(
        fc.constantFrom('claim_task' as const, 'complete_task' as const, 'set_status' as const, 'release_task' as const),
        fc.constantFrom(...TASK_STATUSES),
        fc.constantFrom(...TASK_STATUSES),
        (trigger, status, target) => {
          const d = decide(trigger, agent(status, { isAssignee: false, target, hasHandoffNotes: true }));
          if (d.ok) expect(d.to).toBe(status);
        },
      ),
    );
  });

  it('every row of the specification table is present in the code table', () => {
    const spec = TRANSITIONS.filter((r) => r.source === 'spec').map((r) => `${r.trigger}:${r.to}:${r.reject?.reason ?? ''}`);
    for (const row of [
      'running_receipt:doing:',
      'claim_task:doing:',
      'claim_task:unchanged:not_assigned',
      'claim_task:unchanged:already_claimed',
      'claim_task:unchanged:blocked_by_deps',
      'complete_task:done:',
      'complete_task:unchanged:handoff_notes_required',
      'complete_task:target:',
      'set_status:target:',
      'set_status:unchanged:use_complete_task',
      'release_task:todo:',
      'cancel:cancelled:',
      'reassign:unchanged:',
    ]) {
      expect(spec).toContain(row);
    }
  });
});
