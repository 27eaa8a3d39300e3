import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { UsageScanner } from '../../src-main/core/wakes/usage.js';

function scan(...chunks: string[]) {
  const s = new UsageScanner();
  for (const c of chunks) s.push(Buffer.from(c));
  return s.result();
}

describe('usage read from the host CLIs’ JSON output', () => {
  it('Gemini CLI stream-json (the preset, a real 0.61 run): the result stats and the assistant deltas as the answer', () => {
    const text = readFileSync(fileURLToPath(new URL('../fixtures/transcripts/gemini-stream-json.jsonl', import.meta.url)), 'utf8');
    expect(scan(text.slice(0, 333), text.slice(333))).toEqual({
      usage: { input_tokens: 60, output_tokens: 30, cache_read_tokens: 0, cost_usd: null, model: 'gemini-standin' },
      answer: 'Done: replied in the room.',
    });
    const deltas = ['{"type":"message","role":"assistant","content":"Done: ","delta":true}', '{"type":"message","role":"assistant","content":"twice.","delta":true}'];
    expect(scan(deltas.join('\n') + '\n').answer).toBe('Done: twice.');
  });

  it('Claude Code stream-json: the result event, cache creation counted as input, the answer kept', () => {
    const lines = [
      { type: 'system', subtype: 'init', model: 'claude-sonnet-x', tools: [] },
      { type: 'assistant', message: { content: [{ type: 'text', text: 'working' }] } },
      {
        type: 'result',
        subtype: 'success',
        result: 'Done: replied in the room.',
        total_cost_usd: 0.0421,
        usage: { input_tokens: 20, cache_creation_input_tokens: 5, cache_read_input_tokens: 6, output_tokens: 25 },
        modelUsage: { 'claude-sonnet-x': {} },
      },
    ].map((l) => JSON.stringify(l) + '\n');
    // Split mid-line, as a pipe delivers it.
    const all = lines.join('');
    expect(scan(all.slice(0, 50), all.slice(50, 201), all.slice(201))).toEqual({
      usage: { input_tokens: 25, output_tokens: 25, cache_read_tokens: 6, cost_usd: 0.0421, model: 'claude-sonnet-x' },
      answer: 'Done: replied in the room.',
    });
  });

  it('codex exec --json: every turn.completed summed, cached input as cache reads, no cost', () => {
    const out = [
      { type: 'thread.started', thread_id: 't' },
      { type: 'turn.completed', usage: { input_tokens: 100, cached_input_tokens: 40, output_tokens: 7 } },
      { type: 'item.completed', item: { type: 'agent_message', text: 'replied' } },
      { type: 'turn.completed', usage: { input_tokens: 50, cached_input_tokens: 0, output_tokens: 3 } },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
    expect(scan(out)).toEqual({ usage: { input_tokens: 150, output_tokens: 10, cache_read_tokens: 40, cost_usd: null, model: null }, answer: 'replied' });
  });

  it('gemini --output-format json: one pretty-printed object, tokens per model summed', () => {
    const out = JSON.stringify({ response: 'ok', stats: { models: { 'gemini-x': { tokens: { prompt: 30, candidates: 4, cached: 2, total: 36 } } } } }, null, 2);
    expect(scan('Loaded cached credentials.\n', out)).toEqual({
      usage: { input_tokens: 30, output_tokens: 4, cache_read_tokens: 2, cost_usd: null, model: 'gemini-x' },
      answer: 'ok',
    });
  });

  it('a custom runner’s last line, bare or as {usage}; anything else says nothing', () => {
    const u = { input_tokens: 1, output_tokens: 2, cache_read_tokens: null, cost_usd: 0.5, model: 'm' };
    expect(scan('hello\n', JSON.stringify(u) + '\n').usage).toEqual(u);
    expect(scan('hello\n', JSON.stringify({ usage: { input_tokens: 9 } })).usage).toEqual({ input_tokens: 9, output_tokens: null, cache_read_tokens: null, cost_usd: null, model: null });
    // Not on the last line: not the run's report.
    expect(scan(JSON.stringify(u) + '\n', 'bye\n').usage).toBeUndefined();
    expect(scan('plain text only\n').usage).toBeUndefined();
    expect(scan('{"input_tokens": -5}\n').usage).toBeUndefined();
    expect(scan('{not json\n').usage).toBeUndefined();
  });
});
