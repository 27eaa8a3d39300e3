import { describe, it, expect } from 'vitest';
import {
  CLASSIFICATIONS,
  DIAGNOSE_FAILED,
  classify,
  explain,
  reportWorthy,
  retryAdvice,
  type Classification,
  type FailureFacts,
} from '../../src-main/core/feedback/classify.js';
import { diagnoseByCode, isDiagnoseFailure, nextAction, verdictFrom } from '../../src-main/core/feedback/diagnose.js';

/** diagnose_error's verdicts as plain functions of the stored facts: no database, no clock. */

describe('classify: the class of a failure from its code, reason and tool', () => {
  const cases: Array<[FailureFacts, Classification]> = [
    [{ code: 'UNAUTHENTICATED' }, 'authentication'],
    [{ code: 'SCOPE_MISSING' }, 'permission'],
    [{ code: 'FORBIDDEN' }, 'permission'],
    [{ code: 'NOT_MEMBER' }, 'permission'],
    [{ code: 'CONSENT_REQUIRED' }, 'permission'],
    [{ code: 'CONFLICT' }, 'state'],
    [{ code: 'CONFLICT', reason: 'already_claimed' }, 'state'],
    [{ code: 'RATE_LIMITED' }, 'transient'],
    [{ code: 'UNAVAILABLE' }, 'transient'],
    [{ code: 'INTERNAL' }, 'server_fault'],
    [{ code: 'INVALID_ARGUMENT' }, 'caller_misuse'],
    [{ code: 'PAYLOAD_TOO_LARGE' }, 'caller_misuse'],
    [{ code: 'SOMETHING_NEW' }, 'caller_misuse'],
    [{ code: 'NOT_FOUND' }, 'caller_misuse'],
    // An unknown tool is the caller's mistake unless the specification promises it.
    [{ code: 'NOT_FOUND', reason: 'unknown_tool', tool: 'no_such_tool' }, 'caller_misuse'],
    [{ code: 'NOT_FOUND', reason: 'unknown_tool', tool: 'claim_task' }, 'contract_mismatch'],
    [{ code: 'NOT_FOUND', reason: 'unknown_tool', tool: null }, 'caller_misuse'],
    [{ code: 'NOT_FOUND', reason: 'other', tool: 'claim_task' }, 'caller_misuse'],
    // The contract_mismatch reason wins over any code.
    [{ code: 'INTERNAL', reason: 'contract_mismatch' }, 'contract_mismatch'],
    [{ code: 'INVALID_ARGUMENT', reason: 'contract_mismatch' }, 'contract_mismatch'],
  ];
  it.each(cases)('%j → %s', (facts, want) => {
    expect(classify(facts)).toBe(want);
  });
});

describe('retryAdvice and reportWorthy per class', () => {
  const table: Array<[Classification, { retryable: boolean; delay_ms?: number; max_attempts: number }, boolean]> = [
    ['caller_misuse', { retryable: false, max_attempts: 0 }, false],
    ['authentication', { retryable: false, max_attempts: 0 }, false],
    ['permission', { retryable: false, max_attempts: 0 }, false],
    ['state', { retryable: false, max_attempts: 0 }, false],
    ['transient', { retryable: true, delay_ms: 1000, max_attempts: 1 }, false],
    ['server_fault', { retryable: true, delay_ms: 2000, max_attempts: 1 }, true],
    ['contract_mismatch', { retryable: false, max_attempts: 0 }, true],
  ];
  it('covers every class', () => {
    expect(table.map(([c]) => c).sort()).toEqual([...CLASSIFICATIONS].sort());
  });
  it.each(table)('%s: retry %j, report worthy %s', (c, retry, worthy) => {
    expect(retryAdvice(c, { code: 'X' })).toEqual(retry);
    expect(reportWorthy(c)).toBe(worthy);
  });
  it('a task another instance already holds is never retried, whatever its class', () => {
    for (const c of CLASSIFICATIONS) expect(retryAdvice(c, { code: 'CONFLICT', reason: 'already_claimed' })).toEqual({ retryable: false, max_attempts: 0 });
  });
});

describe('explain', () => {
  it('gives every class a summary and at least one step', () => {
    for (const c of CLASSIFICATIONS) {
      const e = explain(c, { code: 'X' });
      expect(e.summary.length).toBeGreaterThan(0);
      expect(e.steps.length).toBeGreaterThan(0);
    }
  });
  it('returns a copy of the steps: changing one answer does not change the next', () => {
    const a = explain('server_fault', { code: 'INTERNAL' });
    a.steps.push('extra');
    expect(explain('server_fault', { code: 'INTERNAL' }).steps).not.toContain('extra');
  });
  it('a known reason adds its own sentence and replaces the steps of the caller-side classes', () => {
    const e = explain('state', { code: 'CONFLICT', reason: 'already_claimed' });
    expect(e.summary).toMatch(/^The current state does not allow this step.*Another instance of your agent holds this task\.$/);
    expect(e.steps).toEqual(['Stop: do not retry and do not claim it again.']);
  });
  it('keeps the class steps after the reason steps for the other classes', () => {
    const e = explain('contract_mismatch', { code: 'NOT_FOUND', reason: 'unknown_tool', tool: 'claim_task' });
    expect(e.steps[0]).toBe('Call tools/list and use a listed tool.');
    expect(e.steps.slice(1)).toEqual(explain('contract_mismatch', { code: 'NOT_FOUND' }).steps);
  });
  it('ignores an unknown reason', () => {
    expect(explain('transient', { code: 'RATE_LIMITED', reason: 'made_up' })).toEqual(explain('transient', { code: 'RATE_LIMITED' }));
  });
});

describe('verdictFrom: is a report recommended?', () => {
  const table: Array<[string, FailureFacts, boolean, Classification, boolean, RegExp]> = [
    ['a server fault not fixed by a retry', { code: 'INTERNAL', tool: 'send_message' }, false, 'server_fault', true, /worth reporting/],
    ['a contract mismatch', { code: 'NOT_FOUND', reason: 'unknown_tool', tool: 'read_board' }, false, 'contract_mismatch', true, /worth reporting/],
    ['a server fault a retry fixed', { code: 'INTERNAL', tool: 'send_message' }, true, 'server_fault', false, /succeeded after this failure/],
    ['a caller mistake', { code: 'INVALID_ARGUMENT', tool: 'send_message' }, false, 'caller_misuse', false, /caller misuse failure is fixed by the caller/],
    ['a transient failure', { code: 'RATE_LIMITED', tool: 'whoami' }, false, 'transient', false, /fixed by the caller/],
    ['diagnose_error’s own failure', { code: 'INTERNAL', tool: 'diagnose_error' }, false, 'server_fault', false, /never reported/],
    ['a failure marked diagnose_failed', { code: 'NOT_FOUND', reason: DIAGNOSE_FAILED, tool: 'x' }, false, 'caller_misuse', false, /never reported/],
  ];
  it.each(table)('%s', (_name, facts, resolved, classification, recommended, why) => {
    const v = verdictFrom({ code: facts.code, reason: facts.reason ?? null, tool: facts.tool ?? null }, resolved);
    expect(v).toMatchObject({ classification, recommended, resolvedByRetry: resolved });
    expect(v.why).toMatch(why);
  });
  it('isDiagnoseFailure: by tool or by reason', () => {
    expect(isDiagnoseFailure({ tool: 'diagnose_error', reason: null })).toBe(true);
    expect(isDiagnoseFailure({ tool: 'send_message', reason: DIAGNOSE_FAILED })).toBe(true);
    expect(isDiagnoseFailure({ tool: 'send_message', reason: null })).toBe(false);
  });
});

describe('nextAction after a diagnosis', () => {
  const facts = (code: string, tool = 'send_message', reason: string | null = null) => ({ code, tool, reason });
  const table: Array<[string, ReturnType<typeof facts>, boolean, boolean, boolean, string]> = [
    // name, facts, resolved by retry, already reported, bug consent, next
    ['worth reporting, with consent', facts('INTERNAL'), false, false, true, 'report_error'],
    ['worth reporting, without consent', facts('INTERNAL'), false, false, false, 'ask your human for bug consent, then set_feedback_consent'],
    ['already reported', facts('INTERNAL'), false, true, true, 'stop: already reported'],
    ['fixed by a retry', facts('INTERNAL'), true, false, true, 'stop'],
    ['diagnose_error’s own', facts('INTERNAL', 'diagnose_error'), false, false, true, 'stop'],
    ['transient', facts('RATE_LIMITED'), false, false, true, 'retry once after retry.delay_ms'],
    ['caller mistake', facts('INVALID_ARGUMENT'), false, false, true, 'correct the call'],
    ['permission', facts('NOT_MEMBER'), false, false, false, 'correct the call'],
  ];
  it.each(table)('%s', (_name, f, resolved, reported, consent, want) => {
    expect(nextAction(f, verdictFrom(f, resolved), reported, consent)).toBe(want);
  });
});

describe('diagnoseByCode: without an error_id nothing is reported', () => {
  it.each(['INTERNAL', 'RATE_LIMITED', 'INVALID_ARGUMENT', 'NOT_MEMBER'])('%s', (code) => {
    const d = diagnoseByCode((c) => `https://docs/${c}`, 'send_message', code);
    expect(d).toMatchObject({ error_id: null, evidence_available: false, code, classification: classify({ code }), doc_url: `https://docs/${code}` });
    expect(d.feedback).toMatchObject({ recommended: false, already_reported: false, bug_consent: null });
    expect(d.retry).toEqual(retryAdvice(d.classification, { code }));
  });
});
