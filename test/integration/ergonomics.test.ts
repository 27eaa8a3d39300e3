import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';

/**
 * Agent ergonomics, as a model meets the server: the initialize instructions teach the
 * protocol in a few lines and name only tools that exist; every tool description says when to
 * use it and what it returns; a full-scope agent's whole tools/list (the `full` profile) stays under
 * 28 KB of JSON with its annotations. The contract's own budgets (name, title, description and
 * input schema: core <= 12,000 bytes, full <= 24,000, on every host resource) are asserted in
 * tool-profiles.test.ts (docs/core.md, "Tool profiles").
 *
 * The budget counts what a host puts before the model: name, title, description, input schema and
 * annotations. Output schemas (issue 18) are for the client, which checks each result against
 * them; hosts do not show them to the model, so they have a wire budget of their own.
 */

const TOOLS_LIST_BUDGET = 28 * 1024;
const TOOLS_LIST_WIRE_BUDGET = 96 * 1024;

/** Says what comes back: "Returns …", or opens by naming the result ("The room board: …", "Your identity here: …"). */
const SAYS_WHAT_IT_RETURNS = /\breturns?\b|\bcomes? back\b|^(the|your|a|an|who|all|humans|pull-mode)\b/i;
/** Says when or why to use it. */
const SAYS_WHEN = /\b(use|call|when|finish|after|before|only|once|first|step|instead|if|while|without|unless|ask|for large|any size)\b/i;

describe('agent ergonomics', () => {
  let s: TestApp;
  let c: AppClient;
  let tools: Array<{ name: string; description?: string; inputSchema: Record<string, unknown> }>;

  beforeAll(async () => {
    s = await openTestApp();
    const a = await s.agent('Reader', { scopes: ['READ', 'WRITE', 'UPLOAD', 'DOWNLOAD', 'INVOKE'] });
    c = await s.connect(a.credential);
    tools = (await c.listTools()).tools as typeof tools;
  });
  afterAll(async () => s.stop());

  it('initialize instructions teach the protocol in a few lines, naming only real tools', () => {
    const text = c.getInstructions() ?? '';
    const lines = text.split('\n').filter((l) => l.trim());
    console.log(`instructions: ${lines.length} lines, ${text.length} characters`);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.length).toBeLessThanOrEqual(12);
    expect(text.length).toBeLessThanOrEqual(2000);
    const names = new Set(tools.map((t) => t.name));
    // The turn loop, addressing, tasks, context and errors are each taught.
    for (const must of ['send_message', 'mention_targets', 'complete_task', 'handoff_notes', 'get_room_context', 'diagnose_error', 'error_id']) {
      expect(text).toContain(must);
    }
    // Every snake_case word that looks like a call (followed by "(" or listed among the tools) is a tool that exists.
    const called = [...text.matchAll(/\b([a-z]+(?:_[a-z]+)+)\(/g)].map((m) => m[1]!);
    for (const n of called) expect(names.has(n), `instructions call ${n}, which tools/list lacks`).toBe(true);
    for (const t of ['whoami', 'check_mentions', 'claim_task', 'renew_lease', 'complete_task', 'get_room_context', 'diagnose_error', 'send_message']) {
      if (text.includes(t)) expect(names.has(t), `instructions name ${t}, which tools/list lacks`).toBe(true);
    }
  });

  it('every tool description says when to use it and what it returns', () => {
    const missing: string[] = [];
    for (const t of tools) {
      const d = t.description ?? '';
      if (d.length < 40 || d.length > 1000) missing.push(`${t.name}: description is ${d.length} characters`);
      if (!SAYS_WHAT_IT_RETURNS.test(d)) missing.push(`${t.name}: does not say what it returns`);
      if (!SAYS_WHEN.test(d)) missing.push(`${t.name}: does not say when to use it`);
    }
    expect(missing).toEqual([]);
  });

  it('every argument is typed, and required arguments are declared', () => {
    for (const t of tools) {
      const props = (t.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
      for (const [k, p] of Object.entries(props)) {
        expect(p.type !== undefined || p.anyOf !== undefined || p.enum !== undefined || p.oneOf !== undefined, `${t.name}.${k} has no type`).toBe(true);
      }
      for (const r of (t.inputSchema.required ?? []) as string[]) expect(props[r], `${t.name} requires undeclared ${r}`).toBeDefined();
    }
  });

  it('every tool declares its result as an outputSchema, which the client checks (a drifted result fails the call)', async () => {
    const listed = await c.listTools();
    for (const t of listed.tools) {
      expect(t.outputSchema, `${t.name} has no outputSchema`).toBeDefined();
      expect(t.outputSchema!.type).toBe('object');
    }
    // The official client checks every result against it: whoami's result as the schema says.
    const r = await c.callTool({ name: 'whoami', arguments: {} });
    expect(r.isError).toBeFalsy();
    expect(Object.keys(r.structuredContent as object)).toEqual(expect.arrayContaining(['plate', 'handle', 'scopes']));
    // The same check the client runs, on results that drifted from the schema: each is refused.
    const schema = listed.tools.find((t) => t.name === 'whoami')!.outputSchema!;
    const check = new AjvJsonSchemaValidator().getValidator(schema as never);
    const good = r.structuredContent as Record<string, unknown>;
    expect(check(good).valid).toBe(true);
    expect(check({ ...good, surprise: 1 }).valid).toBe(false);
    expect(check({ ...good, plate: 42 }).valid).toBe(false);
    const { handle: _h, ...withoutHandle } = good;
    expect(check(withoutHandle).valid).toBe(false);
    // A failed call's envelope passes, as it must (the client checks error results too).
    expect(check({ error: { code: 'NOT_FOUND', message: 'x', error_id: 'err_1' } }).valid).toBe(true);
  });

  it(`a full-scope agent's tools/list stays under ${TOOLS_LIST_BUDGET / 1024} KB of JSON`, async () => {
    const listed = await c.listTools();
    const wire = Buffer.byteLength(JSON.stringify(listed));
    const bytes = Buffer.byteLength(JSON.stringify({ tools: listed.tools.map(({ outputSchema: _o, ...modelSees }) => modelSees) }));
    const biggest = tools
      .map((t) => ({ name: t.name, bytes: Buffer.byteLength(JSON.stringify(t)) }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 5);
    console.log(
      `tools/list: ${tools.length} tools, ${bytes} bytes of JSON a model reads (~${Math.round(bytes / 4)} tokens), ${wire} bytes with the output schemas; largest: ${biggest.map((b) => `${b.name} ${b.bytes}`).join(', ')}`,
    );
    expect(tools.length).toBeGreaterThan(5);
    expect(bytes).toBeLessThan(TOOLS_LIST_BUDGET);
    expect(wire).toBeLessThan(TOOLS_LIST_WIRE_BUDGET);
  });
});
