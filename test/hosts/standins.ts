/**
 * Loopback stand-ins of the model APIs the host CLIs call: the Anthropic Messages API, the
 * OpenAI Responses API and the Gemini API, each streaming (SSE) the way the real API does.
 * The scripted "model" does what a woken agent does: on its first turn it calls the room's
 * `send_message` tool (found among the tools the host offers, under whatever name the host
 * gives it), with the room id it reads from the system prompt (the wake's envelope); once
 * the tool result is back it ends the turn with a short text. Every request is recorded.
 *
 * With `steps`, the model first works in its working folder through the host's own tools
 * (one tool call per turn, in order: Claude Code's Write / Read / Bash, Codex's apply_patch /
 * exec_command, Gemini CLI's write_file / read_file / run_shell_command), then does the above
 * (when the room's tool is offered) or just ends. What the host sent back for each step is in
 * `toolResults`. A step's tool is called even when the host does not offer it (what a model
 * may try): the host's answer to that is recorded too.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAbsolute, resolve } from 'node:path';

export interface Recorded {
  path: string;
  body: any;
}

export interface StandIn {
  url: string;
  requests: Recorded[];
  /** Tool calls the model made: the tool's name as the host offered it, and its arguments. */
  toolCalls: Array<{ name: string; args: Record<string, unknown> }>;
  /** The tokens this model reported, summed over its answers (what the wakes' usage must add up to). */
  reported: { input_tokens: number; output_tokens: number; cache_read_tokens: number; answers: number };
  /**
   * What the host sent back for each of the `steps` (in step order, once each): the tool's name
   * as called, its output as text, whether the host flagged it an error (Claude Code's
   * `is_error`, Gemini's `error` response; Codex flags none: read its text), and whether the host
   * offered that tool in the request that called it.
   */
  toolResults: Array<{ step: number; tool: string; output: string; isError?: boolean; offered?: boolean }>;
  /** The working folder the host told the model (system prompt / environment context), once seen. */
  workdir?: string;
  close(): Promise<void>;
}

/**
 * One piece of work the scripted model does with the host's own tools before its room step.
 * `path`: relative = inside the working folder the host reports, absolute = as given.
 */
export type Step = { kind: 'write'; path: string; content: string } | { kind: 'read'; path: string } | { kind: 'shell'; command: string };

export interface StepOptions {
  steps?: readonly Step[];
}

function stepPath(workdir: string | undefined, p: string): string {
  return isAbsolute(p) || !workdir ? p : resolve(workdir, p);
}

function outputText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map((c: any) => (typeof c === 'string' ? c : typeof c?.text === 'string' ? c.text : JSON.stringify(c))).join('\n');
  return JSON.stringify(v ?? '');
}

function recordResult(s: StandIn, r: StandIn['toolResults'][number]): void {
  if (s.toolResults.some((x) => x.step === r.step)) return;
  s.toolResults.push(r);
  s.toolResults.sort((a, b) => a.step - b.step);
}

/** A single-quoted shell word. */
function shq(v: string): string {
  return `'${v.replace(/'/g, `'\\''`)}'`;
}

/** What the model posts in the room; the tests look for it there. */
export const REPLY_PREFIX = 'stand-in model reply to: ';
const ROOM_RE = /room_[0-9A-Za-z]+/;

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    return { raw: text };
  }
}

function sse(res: ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`);
  res.end();
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse, body: any, s: StandIn) => void | Promise<void>): Promise<StandIn> {
  const state: StandIn = { url: '', requests: [], toolCalls: [], reported: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, answers: 0 }, toolResults: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = req.method === 'POST' ? await readJson(req) : {};
      state.requests.push({ path: req.url ?? '', body });
      try {
        await handler(req, res, body, state);
      } catch (err) {
        if (!res.headersSent) json(res, 500, { error: { message: String(err) } });
      }
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}

/**
 * What the model posts for a prompt: a reply, or for `ping:HANDLE` a ping back that mentions
 * HANDLE (two agents so prompted wake each other: the loop the loop guard stops).
 */
export function replyFor(prompt: string, system: string): { body: string; mention_targets?: string[] } {
  const ping = /^ping:(\S+)/.exec(prompt.trim());
  const self = /you are: `([^`]+)`/.exec(system)?.[1];
  if (ping && self) return { body: `ping:${self}`, mention_targets: [ping[1]!] };
  return { body: `${REPLY_PREFIX}${prompt.trim()}` };
}

/** The room id the envelope (system prompt / instructions) names, and the user's text. */
function roomIn(text: string): string | undefined {
  return ROOM_RE.exec(text)?.[0];
}

function textOf(v: unknown): string {
  return JSON.stringify(v ?? '');
}

// ---------------------------------------------------------------- Anthropic Messages API

/**
 * POST /v1/messages, streamed. Like a real model: when the room's `…send_message` tool is only
 * listed as deferred (Claude Code's tool search), it first loads it with ToolSearch; then it
 * calls it; once that result is back it ends the turn. Anything else (the side requests
 * Claude Code makes) gets a short text.
 */
export function anthropicStandIn(opts: { hold?: Promise<unknown> } & StepOptions = {}): Promise<StandIn> {
  let n = 0;
  const steps = opts.steps ?? [];
  /** Per step call id: whether the host offered the tool it named. */
  const stepOffered = new Map<string, boolean>();
  return listen(async (req, res, body, s) => {
    // A held model keeps its host's session open (and connected to the room) until released.
    if (opts.hold) await opts.hold;
    const url = req.url ?? '';
    if (req.method !== 'POST' || !url.startsWith('/v1/messages')) return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: url } });
    if (url.startsWith('/v1/messages/count_tokens')) return json(res, 200, { input_tokens: 100 });
    const tools: Array<{ name: string; defer_loading?: boolean }> = Array.isArray(body.tools) ? body.tools : [];
    const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
    const all = JSON.stringify(body);
    const name = tools.find((t) => /^mcp__.+__send_message$/.test(t.name))?.name ?? /mcp__[A-Za-z0-9_-]+__send_message/.exec(all)?.[0];
    const used = new Map<string, string>();
    const results = new Set<string>();
    for (const m of messages) {
      if (!Array.isArray(m?.content)) continue;
      for (const c of m.content) {
        if (c?.type === 'tool_use') used.set(c.id, c.name);
        if (c?.type === 'tool_result') {
          results.add(c.tool_use_id);
          const step = /^toolu_step(\d+)_/.exec(String(c.tool_use_id))?.[1];
          if (step !== undefined) recordResult(s, { step: Number(step), tool: used.get(c.tool_use_id) ?? '', output: outputText(c.content), ...(c.is_error ? { isError: true } : {}), offered: stepOffered.get(c.tool_use_id) });
        }
      }
    }
    const done = (tool: string) => [...used].some(([id, n2]) => n2 === tool && results.has(id));
    const room = roomIn(textOf(body.system));
    const id = `msg_standin_${++n}`;
    const model = String(body.model ?? 'claude-standin');
    const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 3 };
    const report = (output: number) => {
      s.reported.input_tokens += usage.input_tokens;
      s.reported.cache_read_tokens += usage.cache_read_input_tokens;
      s.reported.output_tokens += output;
      s.reported.answers++;
    };
    const start = { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } };
    let call: { name: string; input: Record<string, unknown>; id?: string } | undefined;
    // The steps first, in the main conversation only (the one offered tools; side requests are not).
    const next = steps.length && tools.length ? [...used.keys()].filter((k) => k.startsWith('toolu_step') && results.has(k)).length : steps.length;
    if (next < steps.length) {
      s.workdir ??= /(?:Primary working directory|Working directory): ([^\s"\\]+)/.exec(all)?.[1];
      const st = steps[next]!;
      call =
        st.kind === 'write'
          ? { name: 'Write', input: { file_path: stepPath(s.workdir, st.path), content: st.content } }
          : st.kind === 'read'
            ? { name: 'Read', input: { file_path: stepPath(s.workdir, st.path) } }
            : { name: 'Bash', input: { command: st.command, description: 'Run the step command' } };
      call.id = `toolu_step${next}_${n}`;
      stepOffered.set(call.id, tools.some((t) => t.name === call!.name));
      s.toolCalls.push({ name: call.name, args: call.input });
    } else if (name && room && !done(name)) {
      const loaded = tools.some((t) => t.name === name && !t.defer_loading) || done('ToolSearch');
      if (loaded) {
        call = { name, input: { room, ...replyFor(lastUserText(messages), textOf(body.system)) } };
        s.toolCalls.push({ name, args: call.input });
      } else if (tools.some((t) => t.name === 'ToolSearch')) {
        call = { name: 'ToolSearch', input: { query: `select:${name}`, max_results: 1 } };
      }
    }
    if (call) {
      const toolUse = { type: 'tool_use', id: call.id ?? `toolu_standin_${n}`, name: call.name, input: {} };
      report(20);
      if (!body.stream) return json(res, 200, { ...start.message, content: [{ ...toolUse, input: call.input }], stop_reason: 'tool_use' });
      return sse(res, [
        { event: 'message_start', data: start },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: toolUse } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.input) } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ]);
    }
    const text = name && done(name) ? 'Done: replied in the room.' : steps.length && next >= steps.length && tools.length ? 'Done: steps performed.' : 'ok';
    report(5);
    if (!body.stream) return json(res, 200, { ...start.message, content: [{ type: 'text', text }], stop_reason: 'end_turn' });
    return sse(res, [
      { event: 'message_start', data: start },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
  });
}

/** The prompt: the first user text that is not a system reminder (the wake's content, as it arrived). */
function lastUserText(messages: any[]): string {
  for (const m of messages) {
    if (m?.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) {
      const t = m.content.filter((c: any) => c?.type === 'text' && !String(c.text).startsWith('<system-reminder>')).map((c: any) => String(c.text));
      if (t.length) return t[t.length - 1];
    }
  }
  return '';
}

// ---------------------------------------------------------------- OpenAI Responses API

/** The name Codex offers a tool under: plain function tools, or tools inside a namespace. */
function codexTools(tools: any[]): Array<{ name: string; namespace?: string }> {
  const out: Array<{ name: string; namespace?: string }> = [];
  for (const t of tools) {
    if (t?.type === 'function' && typeof t.name === 'string') out.push({ name: t.name });
    if (t?.type === 'namespace' && Array.isArray(t.tools)) for (const u of t.tools) if (typeof u?.name === 'string') out.push({ name: u.name, namespace: t.name });
  }
  return out;
}

/**
 * A step as Codex's model would do it, with the tools this Codex offers: a file write with
 * `apply_patch` (freeform on models Codex knows; not offered for a model it has no metadata
 * for), else through the shell; a read and a command through `exec_command` (`shell` /
 * `shell_command` on hosts that offer those instead).
 */
function codexStepItem(st: Step, workdir: string | undefined, tools: any[], callId: string, n: number, offered: Map<string, boolean>): Record<string, unknown> {
  const names = new Map<string, string>(tools.filter((t) => typeof t?.name === 'string').map((t) => [t.name as string, t.type as string]));
  const shell = (cmd: string): Record<string, unknown> => {
    const [name, args] = names.has('shell')
      ? ['shell', { command: ['bash', '-lc', cmd], workdir }]
      : names.has('shell_command')
        ? ['shell_command', { command: cmd, workdir }]
        : ['exec_command', { cmd, workdir }];
    offered.set(callId, names.has(name));
    return { type: 'function_call', id: `fc_${n}`, call_id: callId, name, arguments: JSON.stringify(args), status: 'completed' };
  };
  if (st.kind === 'shell') return shell(st.command);
  const path = stepPath(workdir, st.path);
  if (st.kind === 'read') return shell(`cat ${shq(path)}`);
  if (!names.has('apply_patch') && (names.has('exec_command') || names.has('shell') || names.has('shell_command'))) return shell(`printf '%s' ${shq(st.content)} > ${shq(path)}`);
  const patch = ['*** Begin Patch', `*** Add File: ${path}`, ...st.content.split('\n').map((l) => `+${l}`), '*** End Patch', ''].join('\n');
  offered.set(callId, names.has('apply_patch'));
  if (names.get('apply_patch') === 'function') return { type: 'function_call', id: `fc_${n}`, call_id: callId, name: 'apply_patch', arguments: JSON.stringify({ input: patch }), status: 'completed' };
  return { type: 'custom_tool_call', id: `ctc_${n}`, call_id: callId, name: 'apply_patch', input: patch, status: 'completed' };
}

/** POST /v1/responses, streamed: a function_call of the room's send_message, then a message. */
export function openaiStandIn(opts: StepOptions = {}): Promise<StandIn> {
  let n = 0;
  const steps = opts.steps ?? [];
  const stepOffered = new Map<string, boolean>();
  return listen((req, res, body, s) => {
    const url = req.url ?? '';
    if (req.method === 'GET' && url.startsWith('/v1/models')) return json(res, 200, { object: 'list', data: [{ id: 'gpt-standin', object: 'model' }] });
    if (req.method !== 'POST' || !url.startsWith('/v1/responses')) return json(res, 404, { error: { message: url } });
    const input: any[] = Array.isArray(body.input) ? body.input : [];
    // The room's tool answered (a step's output is not that).
    const answered = input.some((i) => i?.type === 'function_call_output' && !String(i.call_id).startsWith('call_step'));
    const stepCalls = new Map<string, string>();
    let stepsAnswered = 0;
    for (const i of input) {
      if ((i?.type === 'function_call' || i?.type === 'custom_tool_call') && String(i.call_id).startsWith('call_step')) stepCalls.set(i.call_id, i.name);
      if ((i?.type === 'function_call_output' || i?.type === 'custom_tool_call_output') && stepCalls.has(i.call_id)) {
        stepsAnswered++;
        recordResult(s, { step: Number(/^call_step(\d+)_/.exec(i.call_id)![1]), tool: stepCalls.get(i.call_id)!, output: outputText(i.output), offered: stepOffered.get(i.call_id) });
      }
    }
    const offeredTools: any[] = Array.isArray(body.tools) ? body.tools : [];
    // The steps first, in a request that offers tools.
    const next = steps.length && offeredTools.length ? stepsAnswered : steps.length;
    const told = textOf(body.instructions) + textOf(input.filter((i) => i?.role === 'developer' || i?.role === 'system'));
    const room = roomIn(told);
    // The user's own ~/.codex/config.toml may hold other agents' servers (what `connect codex` wrote):
    // like a model that follows its instructions, use the server the envelope names.
    const named = /MCP server \\?"([^"\\]+)\\?"/.exec(told)?.[1];
    const plain = (x: string) => x.toLowerCase().replace(/[^a-z0-9]/g, '_');
    // Tools offered up front, and those a client-side tool_search loaded (Codex defers MCP tools
    // behind `tool_search` for the models it knows).
    const loaded = input.filter((i) => i?.type === 'tool_search_output').flatMap((i) => (Array.isArray(i.tools) ? i.tools : []));
    const offered = codexTools([...(Array.isArray(body.tools) ? body.tools : []), ...loaded]).filter((t) => /send_message$/.test(t.name) && /agent.rooms/.test(`${t.namespace ?? ''}${t.name}`));
    const searched = input.some((i) => i?.type === 'tool_search_call');
    const canSearch = (Array.isArray(body.tools) ? body.tools : []).some((t: any) => t?.type === 'tool_search');
    const tool = offered.find((t) => named !== undefined && plain(`${t.namespace ?? ''}${t.name}`).includes(plain(named))) ?? (named === undefined ? offered[0] : undefined);
    const id = `resp_standin_${++n}`;
    const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model ?? 'gpt-standin', status: 'in_progress', output: [] as unknown[] };
    const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 2 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
    s.reported.input_tokens += usage.input_tokens;
    s.reported.output_tokens += usage.output_tokens;
    s.reported.cache_read_tokens += usage.input_tokens_details.cached_tokens;
    s.reported.answers++;
    let item: Record<string, unknown>;
    if (next < steps.length) {
      s.workdir ??= /<cwd>([^<]+)<\/cwd>/.exec(JSON.stringify(input))?.[1];
      item = codexStepItem(steps[next]!, s.workdir, offeredTools, `call_step${next}_${n}`, n, stepOffered);
      s.toolCalls.push({ name: String(item.name), args: typeof item.arguments === 'string' ? JSON.parse(item.arguments) : { input: item.input } });
    } else if (!tool && room && !answered && !searched && canSearch) {
      item = { type: 'tool_search_call', id: `ts_${n}`, call_id: `call_search_${n}`, execution: 'client', arguments: { query: 'send_message', limit: 8 }, status: 'completed' };
    } else if (tool && room && !answered) {
      const user = input.filter((i) => i?.role === 'user').map((i) => textOf(i.content)).pop() ?? '';
      const stdin = /<stdin>\\n([\s\S]*?)\\n<\/stdin>/.exec(user)?.[1];
      const text = stdin ?? (JSON.parse(user || '""') as any)?.[0]?.text ?? '';
      const args = { room, body: `${REPLY_PREFIX}${String(text).trim()}` };
      s.toolCalls.push({ name: tool.namespace ? `${tool.namespace}${tool.name}` : tool.name, args });
      item = { type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, name: tool.name, ...(tool.namespace ? { namespace: tool.namespace } : {}), arguments: JSON.stringify(args), status: 'completed' };
    } else {
      item = { type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: answered ? 'Done: replied in the room.' : steps.length && offeredTools.length ? 'Done: steps performed.' : 'ok', annotations: [] }] };
    }
    return sse(res, [
      { event: 'response.created', data: { type: 'response.created', sequence_number: 0, response: base } },
      { event: 'response.output_item.added', data: { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item } },
      { event: 'response.output_item.done', data: { type: 'response.output_item.done', sequence_number: 2, output_index: 0, item } },
      { event: 'response.completed', data: { type: 'response.completed', sequence_number: 3, response: { ...base, status: 'completed', output: [item], usage } } },
    ]);
  });
}

// ---------------------------------------------------------------- Gemini API

/** POST /v1beta/models/<model>:streamGenerateContent?alt=sse (and :generateContent, :countTokens). */
export function geminiStandIn(opts: StepOptions = {}): Promise<StandIn> {
  const steps = opts.steps ?? [];
  let n = 0;
  /** Per step: the tool it called and whether the host offered it. */
  const stepCalls: Array<{ tool: string; offered: boolean }> = [];
  return listen((req, res, body, s) => {
    const url = req.url ?? '';
    if (req.method !== 'POST') return json(res, 404, { error: { code: 404, message: url } });
    if (url.includes(':countTokens')) return json(res, 200, { totalTokens: 100 });
    if (url.includes(':embedContent') || url.includes(':batchEmbedContents')) return json(res, 200, { embeddings: [] });
    const decls: Array<{ name: string }> = (Array.isArray(body.tools) ? body.tools : []).flatMap((t: any) => (Array.isArray(t?.functionDeclarations) ? t.functionDeclarations : []));
    const tool = decls.find((d) => /send_message$/.test(d.name));
    const contents: any[] = Array.isArray(body.contents) ? body.contents : [];
    const responses: any[] = contents.flatMap((c) => (Array.isArray(c?.parts) ? c.parts.filter((p: any) => p?.functionResponse).map((p: any) => p.functionResponse) : []));
    // With steps, the room's tool answered (a step's response is not that).
    const answered = steps.length ? responses.some((r) => tool !== undefined && r?.name === tool.name) : responses.length > 0;
    const room = roomIn(textOf(body.systemInstruction) + textOf(contents));
    // The steps first, in the main conversation only (the one offered tools): one call per turn, so
    // the k-th response that is not the room tool's answers the k-th step.
    const stepResponses = steps.length && decls.length ? responses.filter((r) => !/send_message$/.test(String(r?.name))) : [];
    stepResponses.forEach((r, k) => {
      const out = r?.response ?? {};
      recordResult(s, { step: k, tool: String(r?.name ?? stepCalls[k]?.tool ?? ''), output: typeof out.output === 'string' ? out.output : typeof out.error === 'string' ? out.error : JSON.stringify(out), ...(out.error !== undefined ? { isError: true } : {}), offered: stepCalls[k]?.offered });
    });
    const next = steps.length && decls.length ? stepResponses.length : steps.length;
    let parts: unknown[];
    if (next < steps.length) {
      const all = JSON.stringify(contents) + textOf(body.systemInstruction);
      s.workdir ??= /Workspace Directories:\*\*\\n\s*- ([^\\"]+)/.exec(all)?.[1] ?? /working in the directory: ([^\\"]+)/.exec(all)?.[1];
      const st = steps[next]!;
      const call =
        st.kind === 'write'
          ? { name: 'write_file', args: { file_path: stepPath(s.workdir, st.path), content: st.content } }
          : st.kind === 'read'
            ? { name: 'read_file', args: { file_path: stepPath(s.workdir, st.path) } }
            : { name: 'run_shell_command', args: { command: st.command, description: 'Run the step command' } };
      stepCalls[next] = { tool: call.name, offered: decls.some((d) => d.name === call.name) };
      s.toolCalls.push(call);
      parts = [{ functionCall: { id: `step${next}_${++n}`, ...call } }];
    } else if (tool && room && !answered) {
      const user = [...contents].reverse().find((c) => c?.role === 'user' && Array.isArray(c.parts) && c.parts.some((p: any) => typeof p?.text === 'string'));
      const text = user ? String(user.parts.filter((p: any) => typeof p?.text === 'string').pop().text) : '';
      const args = { room, body: `${REPLY_PREFIX}${text.trim()}` };
      s.toolCalls.push({ name: tool.name, args });
      parts = [{ functionCall: { name: tool.name, args } }];
    } else {
      // Side requests (model routing, next-speaker checks) ask for JSON: one object that answers both.
      parts = [
        {
          text: answered
            ? 'Done: replied in the room.'
            : steps.length && decls.length
              ? 'Done: steps performed.'
              : JSON.stringify({ complexity_reasoning: 'simple', complexity_score: 1, next_speaker: 'user', reasoning: 'done' }),
        },
      ];
    }
    s.reported.input_tokens += 10;
    s.reported.output_tokens += 5;
    s.reported.answers++;
    const chunk = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      modelVersion: 'gemini-standin',
    };
    if (url.includes(':streamGenerateContent')) return sse(res, [{ data: chunk }]);
    return json(res, 200, chunk);
  });
}

// ---------------------------------------------------------------- OpenAI Chat Completions API

/** A Chat Completions message's text, whatever its content's shape (a string or text parts). */
function chatText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: any) => (typeof c === 'string' ? c : typeof c?.text === 'string' ? c.text : '')).join('\n');
  return '';
}

/** A room id as the envelope writes it (a ULID after `room_`; not words like `room_context` a host's prompt may hold). */
const CHAT_ROOM_RE = /room_[0-9a-hjkmnp-tv-z]{26}/;

/**
 * The room's `send_message` among the tools a host offers, under whatever name it gives it
 * (opencode `agent-rooms-<plate>_send_message`, Copilot CLI `agent-rooms-<plate>-send_message`,
 * Qwen Code `mcp__agent-rooms-<plate>__send_message`, Cline `…send_message`): the one whose name
 * carries the server the envelope names, else the only one. A host's own `send_message` (Qwen
 * Code has one, for its background tasks) is not the room's.
 */
function chatRoomTool(names: string[], server: string | undefined): string | undefined {
  const plain = (x: string) => x.toLowerCase().replace(/[^a-z0-9]/g, '');
  const candidates = names.filter((n) => /send_message$/.test(n) && n !== 'send_message');
  const mine = server ? candidates.find((n) => plain(n).includes(plain(server))) : undefined;
  return mine ?? (!server && candidates.length === 1 ? candidates[0] : undefined);
}

/** The user's text as the model reads it, without the tags a host adds before it (Copilot CLI's `<current_datetime>`). */
function chatUserText(messages: any[]): string {
  const user = [...messages].reverse().find((m) => m?.role === 'user' && chatText(m.content).trim());
  return chatText(user?.content)
    .replace(/^(\s*<([a-z_]+)>[\s\S]*?<\/\2>)+/, '')
    .trim();
}

/**
 * POST /v1/chat/completions (and /chat/completions), streamed (SSE `chat.completion.chunk`s, the
 * usage in a last chunk of its own when `stream_options.include_usage` asks, then `[DONE]`) or
 * not. On its first turn the model calls the room's `send_message` with the room the system
 * prompt names and the user's text; when the host lists that tool only as deferred (Qwen Code's
 * tool search), it first loads it with `tool_search` (`select:<name>`); once a `tool` message
 * answers the call, it ends with a short text. Requests that offer no such tool (titles,
 * summaries a host asks for on the side) get a short text. GET /v1/models lists one model.
 */
export function chatStandIn(opts: { model?: string } = {}): Promise<StandIn> {
  let n = 0;
  const modelId = opts.model ?? 'gpt-standin';
  return listen((req, res, body, s) => {
    const url = (req.url ?? '').replace(/\?.*$/, '');
    if (req.method === 'GET' && /\/models$/.test(url)) return json(res, 200, { object: 'list', data: [{ id: modelId, object: 'model', created: 0, owned_by: 'standin' }] });
    if (req.method === 'GET' && /\/models\/[^/]+$/.test(url)) return json(res, 200, { id: modelId, object: 'model', created: 0, owned_by: 'standin' });
    if (req.method !== 'POST' || !/\/chat\/completions$/.test(url)) return json(res, 404, { error: { message: `not found: ${url}`, type: 'invalid_request_error' } });
    const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
    const offered: string[] = (Array.isArray(body.tools) ? body.tools : []).map((t: any) => t?.function?.name ?? t?.name).filter((x: unknown): x is string => typeof x === 'string');
    const told = messages.filter((m) => m?.role === 'system' || m?.role === 'developer').map((m) => chatText(m.content)).join('\n');
    const room = CHAT_ROOM_RE.exec(told)?.[0];
    const server = /agent-rooms-[a-z0-9]+-agt-[a-z0-9]+/.exec(told)?.[0];
    const tool = chatRoomTool(offered, server);
    // A deferred tool: named in the prompt, not yet offered.
    const deferred = tool ? undefined : chatRoomTool([...new Set(JSON.stringify(messages).match(/[A-Za-z0-9_-]*send_message\b/g) ?? [])], server);
    const calls = new Map<string, string>();
    for (const m of messages) if (m?.role === 'assistant' && Array.isArray(m.tool_calls)) for (const c of m.tool_calls) calls.set(c.id, c?.function?.name);
    const answered = (name: string | undefined) => name !== undefined && messages.some((m) => m?.role === 'tool' && calls.get(m.tool_call_id) === name);
    const id = `chatcmpl-standin-${++n}`;
    const created = Math.floor(Date.now() / 1000);
    const model = String(body.model ?? modelId);
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 0 } };
    s.reported.input_tokens += usage.prompt_tokens;
    s.reported.output_tokens += usage.completion_tokens;
    s.reported.cache_read_tokens += usage.prompt_tokens_details.cached_tokens;
    s.reported.answers++;
    let call: { id: string; name: string; args: Record<string, unknown> } | undefined;
    let text = 'ok';
    if (tool && room && !answered(tool)) {
      const args = { room, ...replyFor(chatUserText(messages), told) };
      call = { id: `call_standin_${n}`, name: tool, args };
      s.toolCalls.push({ name: tool, args });
    } else if (deferred && room && offered.includes('tool_search') && !answered('tool_search')) {
      call = { id: `call_search_${n}`, name: 'tool_search', args: { query: `select:${deferred}`, max_results: 1 } };
    } else if (answered(tool)) {
      text = 'Done: replied in the room.';
    }
    const message = call
      ? { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }] }
      : { role: 'assistant', content: text };
    const finish = call ? 'tool_calls' : 'stop';
    if (!body.stream) return json(res, 200, { id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish, logprobs: null }], usage });
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ id, object: 'chat.completion.chunk', created, model, choices, ...extra });
    const events = [chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }])];
    if (call) {
      events.push(chunk([{ index: 0, delta: { tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }, finish_reason: null }]));
      events.push(chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: JSON.stringify(call.args) } }] }, finish_reason: null }]));
    } else {
      events.push(chunk([{ index: 0, delta: { content: text }, finish_reason: null }]));
    }
    // The usage in a chunk of its own (choices empty) when asked, as OpenAI streams it; else on the last chunk.
    const ownChunk = body.stream_options?.include_usage === true;
    events.push(chunk([{ index: 0, delta: {}, finish_reason: finish }], ownChunk ? {} : { usage }));
    if (ownChunk) events.push(chunk([], { usage }));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
    res.end('data: [DONE]\n\n');
  });
}
