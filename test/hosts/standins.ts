/**
 * Loopback stand-ins of the model APIs the host CLIs call: the Anthropic Messages API, the
 * OpenAI Responses API and the Gemini API, each streaming (SSE) the way the real API does.
 * The scripted "model" does what a woken agent does: on its first turn it calls the room's
 * `send_message` tool (found among the tools the host offers, under whatever name the host
 * gives it), with the room id it reads from the system prompt (the wake's envelope); once
 * the tool result is back it ends the turn with a short text. Every request is recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  close(): Promise<void>;
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
  const state: StandIn = { url: '', requests: [], toolCalls: [], reported: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, answers: 0 }, close: async () => {} };
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
export function anthropicStandIn(opts: { hold?: Promise<unknown> } = {}): Promise<StandIn> {
  let n = 0;
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
        if (c?.type === 'tool_result') results.add(c.tool_use_id);
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
    let call: { name: string; input: Record<string, unknown> } | undefined;
    if (name && room && !done(name)) {
      const loaded = tools.some((t) => t.name === name && !t.defer_loading) || done('ToolSearch');
      if (loaded) {
        call = { name, input: { room, ...replyFor(lastUserText(messages), textOf(body.system)) } };
        s.toolCalls.push({ name, args: call.input });
      } else if (tools.some((t) => t.name === 'ToolSearch')) {
        call = { name: 'ToolSearch', input: { query: `select:${name}`, max_results: 1 } };
      }
    }
    if (call) {
      const toolUse = { type: 'tool_use', id: `toolu_standin_${n}`, name: call.name, input: {} };
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
    const text = name && done(name) ? 'Done: replied in the room.' : 'ok';
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

/** POST /v1/responses, streamed: a function_call of the room's send_message, then a message. */
export function openaiStandIn(): Promise<StandIn> {
  let n = 0;
  return listen((req, res, body, s) => {
    const url = req.url ?? '';
    if (req.method === 'GET' && url.startsWith('/v1/models')) return json(res, 200, { object: 'list', data: [{ id: 'gpt-standin', object: 'model' }] });
    if (req.method !== 'POST' || !url.startsWith('/v1/responses')) return json(res, 404, { error: { message: url } });
    const input: any[] = Array.isArray(body.input) ? body.input : [];
    const answered = input.some((i) => i?.type === 'function_call_output');
    const told = textOf(body.instructions) + textOf(input.filter((i) => i?.role === 'developer' || i?.role === 'system'));
    const room = roomIn(told);
    // The user's own ~/.codex/config.toml may hold other agents' servers (what `connect codex` wrote):
    // like a model that follows its instructions, use the server the envelope names.
    const named = /MCP server \\?"([^"\\]+)\\?"/.exec(told)?.[1];
    const plain = (x: string) => x.toLowerCase().replace(/[^a-z0-9]/g, '_');
    const offered = codexTools(Array.isArray(body.tools) ? body.tools : []).filter((t) => /send_message$/.test(t.name) && /agent.rooms/.test(`${t.namespace ?? ''}${t.name}`));
    const tool = offered.find((t) => named !== undefined && plain(`${t.namespace ?? ''}${t.name}`).includes(plain(named))) ?? (named === undefined ? offered[0] : undefined);
    const id = `resp_standin_${++n}`;
    const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model ?? 'gpt-standin', status: 'in_progress', output: [] as unknown[] };
    const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 2 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
    s.reported.input_tokens += usage.input_tokens;
    s.reported.output_tokens += usage.output_tokens;
    s.reported.cache_read_tokens += usage.input_tokens_details.cached_tokens;
    s.reported.answers++;
    let item: Record<string, unknown>;
    if (tool && room && !answered) {
      const user = input.filter((i) => i?.role === 'user').map((i) => textOf(i.content)).pop() ?? '';
      const stdin = /<stdin>\\n([\s\S]*?)\\n<\/stdin>/.exec(user)?.[1];
      const text = stdin ?? (JSON.parse(user || '""') as any)?.[0]?.text ?? '';
      const args = { room, body: `${REPLY_PREFIX}${String(text).trim()}` };
      s.toolCalls.push({ name: tool.namespace ? `${tool.namespace}${tool.name}` : tool.name, args });
      item = { type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, name: tool.name, ...(tool.namespace ? { namespace: tool.namespace } : {}), arguments: JSON.stringify(args), status: 'completed' };
    } else {
      item = { type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: answered ? 'Done: replied in the room.' : 'ok', annotations: [] }] };
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
export function geminiStandIn(): Promise<StandIn> {
  return listen((req, res, body, s) => {
    const url = req.url ?? '';
    if (req.method !== 'POST') return json(res, 404, { error: { code: 404, message: url } });
    if (url.includes(':countTokens')) return json(res, 200, { totalTokens: 100 });
    if (url.includes(':embedContent') || url.includes(':batchEmbedContents')) return json(res, 200, { embeddings: [] });
    const decls: Array<{ name: string }> = (Array.isArray(body.tools) ? body.tools : []).flatMap((t: any) => (Array.isArray(t?.functionDeclarations) ? t.functionDeclarations : []));
    const tool = decls.find((d) => /send_message$/.test(d.name));
    const contents: any[] = Array.isArray(body.contents) ? body.contents : [];
    const answered = contents.some((c) => Array.isArray(c?.parts) && c.parts.some((p: any) => p?.functionResponse));
    const room = roomIn(textOf(body.systemInstruction) + textOf(contents));
    let parts: unknown[];
    if (tool && room && !answered) {
      const user = [...contents].reverse().find((c) => c?.role === 'user' && Array.isArray(c.parts) && c.parts.some((p: any) => typeof p?.text === 'string'));
      const text = user ? String(user.parts.filter((p: any) => typeof p?.text === 'string').pop().text) : '';
      const args = { room, body: `${REPLY_PREFIX}${text.trim()}` };
      s.toolCalls.push({ name: tool.name, args });
      parts = [{ functionCall: { name: tool.name, args } }];
    } else {
      // Side requests (model routing, next-speaker checks) ask for JSON: one object that answers both.
      parts = [{ text: answered ? 'Done: replied in the room.' : JSON.stringify({ complexity_reasoning: 'simple', complexity_score: 1, next_speaker: 'user', reasoning: 'done' }) }];
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
