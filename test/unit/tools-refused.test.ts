import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TranscriptScanner } from '../../src-main/core/wakes/transcript.js';
import { hostAdapter } from '../../src-main/core/hosts/adapter.js';

/**
 * Each native host's refusal of the room's tools, read from its own JSON stream by its adapter
 * (hosts/<id>.ts toolsRefused): the fixtures are the streams the pinned CLIs print when an
 * approval rule refuses a call; the host's other refusals (a write outside the folder) are not.
 */
const FIXTURES = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'fixtures', 'transcripts');
const SERVER = 'agent-rooms-adao-agt-k2q7mz';

function refusalOf(host: string, fixture: string, format: 'claude-stream-json' | 'codex-json' | 'gemini-stream-json', chunk = 0): string | undefined {
  const s = new TranscriptScanner(format, [], { adapter: hostAdapter(host), server: SERVER });
  const text = readFileSync(join(FIXTURES, fixture), 'utf8');
  // Fed in pieces when asked: a refusal split across chunks is still found.
  if (chunk) for (let i = 0; i < text.length; i += chunk) s.push(text.slice(i, i + chunk));
  else s.push(text);
  s.end();
  return s.toolsRefused();
}

describe('tools refused, per host', () => {
  it('Claude Code: a permission rule that denies the room server', () => {
    expect(refusalOf('claude-code', 'claude-refused.jsonl', 'claude-stream-json')).toMatch(/denied because of a permission rule/);
    expect(refusalOf('claude-code', 'claude-refused.jsonl', 'claude-stream-json', 7)).toMatch(/denied because of a permission rule/);
    // Write refused outside the working folder is the work policy at work, not the room's tools refused.
    expect(refusalOf('claude-code', 'claude-stream-json.jsonl', 'claude-stream-json')).toBeUndefined();
  });

  it("Codex: an MCP call its approval policy refused", () => {
    expect(refusalOf('codex', 'codex-refused.jsonl', 'codex-json')).toBe('MCP tool call requires approval, but approval policy is never');
    expect(refusalOf('codex', 'codex-exec-json.jsonl', 'codex-json')).toBeUndefined();
  });

  it('Gemini CLI: a policy that denies the room server tool', () => {
    expect(refusalOf('gemini', 'gemini-refused.jsonl', 'gemini-stream-json')).toBe('Tool execution denied by policy.');
    // "Path not in workspace" for write_file is not the room's tool.
    expect(refusalOf('gemini', 'gemini-stream-json.jsonl', 'gemini-stream-json')).toBeUndefined();
  });

  it("another agent's server refused is not this run's refusal", () => {
    const s = new TranscriptScanner('codex-json', [], { adapter: hostAdapter('codex'), server: 'agent-rooms-other' });
    s.push(readFileSync(join(FIXTURES, 'codex-refused.jsonl'), 'utf8'));
    s.end();
    expect(s.toolsRefused()).toBeUndefined();
  });
});
