import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostAdapter } from '../../src-main/core/hosts/adapter.js';
import { opencodeRunConfig, opencodeUsageEvent } from '../../src-main/core/hosts/opencode.js';
import { copilotUsage } from '../../src-main/core/hosts/copilot.js';
import { qwenRunSettings } from '../../src-main/core/hosts/qwen.js';
import { clineUsage } from '../../src-main/core/hosts/cline.js';
import { runnerSpawnSpec } from '../../src-main/core/wakes/spawn-spec.js';
import { TranscriptScanner } from '../../src-main/core/wakes/transcript.js';
import { UsageScanner } from '../../src-main/core/wakes/usage.js';
import type { UsageState } from '../../src-main/core/hosts/adapter.js';

/**
 * The four hosts of the generic `/mcp` resource (docs/hosts.md): their run settings, usage
 * parsers and refusal readers, on lines captured from the real CLIs (opencode 1.18.33, Copilot
 * CLI 1.0.102, Qwen Code 0.15.10, Cline 3.0.65) against the test/hosts stand-in.
 */

const SERVER = 'agent-rooms-adao-agt-ya4vgn';
const URL = 'http://127.0.0.1:7878/mcp?tools=core';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'ar-hosts-generic-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const adapter = (id: string) => hostAdapter(id)!;

describe('opencode', () => {
  const rejected = {
    type: 'tool_use',
    part: { type: 'tool', tool: `${SERVER}_send_message`, callID: 'call_standin_8', state: { status: 'error', input: { room: 'room_x' }, error: 'The user rejected permission to use this specific tool call.' } },
  };

  it('a run merges the room server, allow for its tools after the user\'s own rules, the other agents\' servers off and the envelope file', () => {
    mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
    writeFileSync(
      join(home, '.config', 'opencode', 'opencode.json'),
      JSON.stringify({ permission: 'ask', instructions: ['~/rules.md'], mcp: { 'agent-rooms-other-agt-1': { type: 'remote', url: 'x', headers: { Authorization: 'Bearer ark_other' } }, mine: { type: 'local', command: ['x'] } } }),
    );
    const c = opencodeRunConfig({ HOME: home }, SERVER, URL, '/tmp/wake.md') as any;
    expect(c.mcp[SERVER]).toEqual({ type: 'remote', url: URL, enabled: true, oauth: false, headers: { Authorization: 'Bearer {env:AGENT_ROOMS_CREDENTIAL}' } });
    expect(c.mcp['agent-rooms-other-agt-1'].enabled).toBe(false);
    expect(JSON.stringify(c)).not.toContain('ark_other');
    expect(c.mcp.mine).toBeUndefined();
    // A one-word permission is every tool's rule: it stays first, the room's tools are allowed after it.
    expect(Object.entries(c.permission)).toEqual([
      ['*', 'ask'],
      [`${SERVER}_*`, 'allow'],
    ]);
    expect(c.instructions).toEqual(['~/rules.md', '/tmp/wake.md']);
  });

  it('an object permission of the user\'s is left to opencode\'s merge: only the room\'s rule is added', () => {
    mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
    writeFileSync(join(home, '.config', 'opencode', 'opencode.json'), JSON.stringify({ permission: { '*': 'ask' } }));
    expect((opencodeRunConfig({ HOME: home }, SERVER, URL, '/w.md') as any).permission).toEqual({ [`${SERVER}_*`]: 'allow' });
  });

  it('its per-run home puts the config in OPENCODE_CONFIG_CONTENT (no credential) and the envelope in an owner-only file, removed after', () => {
    const h = adapter('opencode').runHome!({ env: { HOME: home, AGENT_ROOMS_CREDENTIAL: 'ark_secret_value_of_the_run' }, server: SERVER, mcpBaseUrl: URL, instructions: 'room room_abc', preset: true, command: 'opencode', args: [] });
    const content = JSON.parse(h.env.OPENCODE_CONFIG_CONTENT!);
    expect(h.env.OPENCODE_CONFIG_CONTENT).not.toContain('ark_secret');
    const file = content.instructions.at(-1);
    expect(readFileSync(file, 'utf8')).toContain('room room_abc');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    h.cleanup();
    expect(existsSync(file)).toBe(false);
  });

  it('usage: the tokens of every step_finish, cached prompt tokens apart; the last text is the answer', () => {
    const step = { type: 'step_finish', part: { type: 'step-finish', reason: 'tool-calls', tokens: { total: 15, input: 8, output: 5, reasoning: 0, cache: { write: 0, read: 2 } }, cost: 0 } };
    const s = new UsageScanner(adapter('opencode').usageEvent);
    s.push(`${JSON.stringify(step)}\n${JSON.stringify({ type: 'text', part: { type: 'text', text: 'Done: replied in the room.' } })}\n${JSON.stringify(step)}\n`);
    const state: UsageState = {};
    for (const o of [step, step]) opencodeUsageEvent(o, state);
    expect(state.usage).toEqual({ input_tokens: 16, output_tokens: 10, cache_read_tokens: 4, cost_usd: null, model: null });
  });

  it('a rejected call of the room\'s tool is a refusal with its words; another server\'s or a completed call is not', () => {
    const a = adapter('opencode');
    expect(a.toolsRefused!(rejected, SERVER)).toBe('The user rejected permission to use this specific tool call.');
    expect(a.toolsRefused!({ ...rejected, part: { ...rejected.part, tool: 'bash' } }, SERVER)).toBeUndefined();
    expect(a.toolsRefused!({ ...rejected, part: { ...rejected.part, state: { status: 'completed', output: '{}' } } }, SERVER)).toBeUndefined();
    expect(a.streamFormat(['run', '--format', 'json'], true)).toBe('json-lines');
    expect(a.streamFormat(['run'], false)).toBe('text');
  });
});

describe('copilot', () => {
  const start = { type: 'tool.execution_start', data: { toolCallId: 'call_1', toolName: `${SERVER}-send_message`, mcpServerName: SERVER } };
  const denied = {
    type: 'tool.execution_complete',
    data: { toolCallId: 'call_1', success: false, error: { message: 'Permission denied because no interactive user response was available. Retry in an interactive session so the user can approve it, or try an alternative that does not require this permission.', code: 'denied' } },
  };

  it('usage: the tokens per model of the usage file', () => {
    const file = { modelMetrics: { 'gpt-standin': { requests: { count: 2, cost: 0 }, usage: { inputTokens: 20, outputTokens: 10, cacheReadTokens: 4, cacheWriteTokens: 0 } } } };
    expect(copilotUsage(JSON.stringify(file))).toEqual({ input_tokens: 20, output_tokens: 10, cache_read_tokens: 4, cost_usd: null, model: 'gpt-standin' });
    expect(copilotUsage('not json')).toBeUndefined();
    expect(copilotUsage('{}')).toBeUndefined();
  });

  it('a denied call of the room\'s tool is a refusal, matched through the call that named it; a denied shell call is not', () => {
    const a = adapter('copilot');
    expect(a.toolsRefused!(start, SERVER)).toBeUndefined();
    expect(a.toolsRefused!(denied, SERVER)).toMatch(/^Permission denied because no interactive user response/);
    a.toolsRefused!({ type: 'tool.execution_start', data: { toolCallId: 'call_2', toolName: 'bash' } }, SERVER);
    expect(a.toolsRefused!({ ...denied, data: { ...denied.data, toolCallId: 'call_2' } }, SERVER)).toBeUndefined();
    expect(a.toolsRefused!({ ...denied, data: { ...denied.data, toolCallId: 'call_1', success: true } }, SERVER)).toBeUndefined();
  });

  it('a run: the usage file and the envelope in a per-run folder, the room\'s server allowed alone, the other agents\' servers off', () => {
    mkdirSync(join(home, '.copilot'), { recursive: true });
    writeFileSync(join(home, '.copilot', 'mcp-config.json'), JSON.stringify({ mcpServers: { 'agent-rooms-other-agt-1': {}, mine: {} } }));
    const spec = runnerSpawnSpec(
      { plate: 'ADAO-AGT-YA4VGN', host: 'copilot', preset: 'copilot --allow-tool', command: '/bin/copilot', args: [], env: { HOME: home }, cwd: null, timeout_ms: 1000 } as any,
      { wake_id: 'wake_1', room: 'room_abc' } as any,
      'http://127.0.0.1:7878/mcp',
      'ark_the_run_credential_value',
      'room',
    );
    if ('refused' in spec) throw new Error(spec.refused);
    const args = spec.args;
    expect(args[0]).toBe('--no-auto-update');
    expect(args.slice(args.indexOf('--allow-tool'), args.indexOf('--allow-tool') + 2)).toEqual(['--allow-tool', SERVER]);
    expect(args.join(' ')).toContain('--disable-mcp-server agent-rooms-other-agt-1');
    expect(args.join(' ')).not.toContain('--disable-mcp-server mine');
    expect(args.join(' ')).not.toContain('ark_the_run');
    const config = JSON.parse(args[args.indexOf('--additional-mcp-config') + 1]!);
    expect(config.mcpServers[SERVER]).toEqual({ type: 'http', url: 'http://127.0.0.1:7878/mcp?tools=core', headers: { Authorization: 'Bearer ${AGENT_ROOMS_CREDENTIAL}' }, tools: ['*'] });
    const usageFile = args[args.indexOf('--usage-output-file') + 1]!;
    const dir = spec.env.COPILOT_CUSTOM_INSTRUCTIONS_DIRS!;
    expect(readFileSync(join(dir, '.github', 'instructions', 'agent-rooms-wake.instructions.md'), 'utf8')).toContain('room_abc');
    writeFileSync(usageFile, JSON.stringify({ modelMetrics: { m: { usage: { inputTokens: 3, outputTokens: 1, cacheReadTokens: 0 } } } }));
    expect(spec.home!.usage!()).toMatchObject({ input_tokens: 3, output_tokens: 1, model: 'm' });
    spec.home!.cleanup();
    expect(existsSync(dir)).toBe(false);
  });
});

describe('qwen', () => {
  it('a run\'s system settings: the machine\'s own, the room\'s server trusted with the credential as a variable, the other agents\' excluded', () => {
    const system = join(home, 'system.json');
    writeFileSync(system, JSON.stringify({ general: { x: 1 }, mcp: { excluded: ['theirs'] } }));
    mkdirSync(join(home, '.qwen'), { recursive: true });
    writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify({ mcpServers: { 'agent-rooms-other-agt-1': { httpUrl: 'x', headers: { Authorization: 'Bearer ark_other' } }, [SERVER]: {} } }));
    const s = qwenRunSettings({ HOME: home, QWEN_CODE_SYSTEM_SETTINGS_PATH: system }, SERVER, URL) as any;
    expect(s.general).toEqual({ x: 1 });
    expect(s.mcpServers[SERVER]).toEqual({ httpUrl: URL, headers: { Authorization: 'Bearer $AGENT_ROOMS_CREDENTIAL' }, trust: true });
    expect(s.mcp.excluded).toEqual(['theirs', 'agent-rooms-other-agt-1']);
    expect(JSON.stringify(s)).not.toContain('ark_other');
  });

  it('a declined call of the room\'s tool is a refusal; its stream-json reads as Claude Code\'s, usage included', () => {
    const a = adapter('qwen');
    const call = { type: 'assistant', message: { content: [{ type: 'tool_use', id: 'call_standin_8', name: `mcp__${SERVER}__send_message`, input: {} }] } };
    const result = {
      type: 'user',
      message: { content: [{ type: 'tool_result', tool_use_id: 'call_standin_8', is_error: true, content: `Qwen Code requires permission to use "mcp__${SERVER}__send_message", but that permission was declined (non-interactive mode cannot prompt for confirmation).` }] },
    };
    expect(a.toolsRefused!(call, SERVER)).toBeUndefined();
    expect(a.toolsRefused!(result, SERVER)).toMatch(/permission was declined/);
    // Qwen Code's own send_message (its background tasks) failing is no refusal of the room's tools.
    a.toolsRefused!({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 'c2', name: 'send_message' }] } }, SERVER);
    expect(a.toolsRefused!({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'c2', is_error: true, content: 'permission declined' }] } }, SERVER)).toBeUndefined();
    expect(a.streamFormat(['-o', 'stream-json'], true)).toBe('claude-stream-json');
    const u = new UsageScanner(a.usageEvent);
    u.push(`${JSON.stringify({ type: 'result', subtype: 'success', usage: { input_tokens: 20, output_tokens: 10, cache_read_input_tokens: 4, total_tokens: 30 } })}\n`);
    expect(u.result().usage).toMatchObject({ input_tokens: 20, output_tokens: 10, cache_read_tokens: 4 });
  });
});

describe('cline', () => {
  const refusedLine = `   \u001b[90m⎿ \u001b[0m\u001b[31merror: {"error":"Tool \\"${SERVER}__send_message\\" requires approval in a TTY session -- NOT a tool or system failure. Clarify with user before proceeding."}\u001b[0m`;

  it('a call of the room\'s tool that needs approval is a refusal, read from its -v text; another tool\'s is not', () => {
    const a = adapter('cline');
    expect(a.toolsRefusedLine!(refusedLine, SERVER)).toBe(`Tool "${SERVER}__send_message" requires approval in a TTY session -- NOT a tool or system failure. Clarify with user before proceeding.`);
    expect(a.toolsRefusedLine!(refusedLine.replace(`${SERVER}__send_message`, 'execute_command'), SERVER)).toBeUndefined();
    // The transcript of a text run reads it too (what makes the wake fail tools_refused).
    const t = new TranscriptScanner('text', [], { adapter: a, server: SERVER });
    t.push(`[hook:tool_call] ${SERVER}__send_message\n${refusedLine}\nDone.\n`);
    expect(t.toolsRefused()).toMatch(/requires approval in a TTY session/);
  });

  it('a run starts through a shell pipe: Cline reads its prompt from a FIFO only, never from the socket a Node child gets', () => {
    const spec = runnerSpawnSpec(
      { plate: 'ADAO-AGT-YA4VGN', host: 'cline', preset: 'cline -v', command: '/opt/bin/cline', args: [], env: { HOME: home }, cwd: null, timeout_ms: 1000 } as any,
      { wake_id: 'wake_1', room: 'room_abc' } as any,
      'http://127.0.0.1:7878/mcp',
      'ark_the_run_credential_value',
      'room',
    );
    if ('refused' in spec) throw new Error(spec.refused);
    expect(spec.command).toBe('/bin/sh');
    expect(spec.args).toEqual(['-c', 'cat | exec "$0" "$@"', '/opt/bin/cline', '-v']);
    expect(spec.args.join(' ')).not.toContain('ark_');
    spec.home!.cleanup();
  });

  it('usage: the session record\'s aggregate tokens', () => {
    expect(clineUsage({ model: 'gpt-standin', metadata: { aggregateUsage: { inputTokens: 20, outputTokens: 10, cacheReadTokens: 4, cacheWriteTokens: 0, totalCost: 0 } } })).toEqual({
      input_tokens: 20,
      output_tokens: 10,
      cache_read_tokens: 4,
      cost_usd: null,
      model: 'gpt-standin',
    });
    expect(clineUsage({})).toBeUndefined();
  });

  it('a run\'s folder: the room server with the run\'s credential in an owner-only file, the envelope as a rule, no hub daemon, the session record read for usage', () => {
    const settings = join(home, '.cline', 'data', 'settings');
    mkdirSync(settings, { recursive: true });
    mkdirSync(join(home, '.cline', 'rules'));
    writeFileSync(join(home, '.cline', 'rules', 'mine.md'), 'my rule');
    writeFileSync(join(settings, 'cline_mcp_settings.json'), JSON.stringify({ mcpServers: { 'agent-rooms-other-agt-1': { transport: {} }, mine: { command: 'x' } } }));
    const h = adapter('cline').runHome!({ env: { HOME: home, AGENT_ROOMS_CREDENTIAL: 'ark_the_run_credential_value' }, server: SERVER, mcpBaseUrl: URL, instructions: 'room room_abc', preset: true, command: 'cline', args: ['-v'] });
    expect(h.env).toMatchObject({ CLINE_SESSION_BACKEND_MODE: 'local', CLINE_DATA_DIR: join(home, '.cline', 'data') });
    const mcp = h.env.CLINE_MCP_SETTINGS_PATH!;
    expect(statSync(mcp).mode & 0o777).toBe(0o600);
    const servers = JSON.parse(readFileSync(mcp, 'utf8')).mcpServers;
    expect(Object.keys(servers).sort()).toEqual([SERVER, 'mine'].sort());
    expect(servers[SERVER].transport).toEqual({ type: 'streamableHttp', url: URL, headers: { Authorization: 'Bearer ark_the_run_credential_value' } });
    const rules = join(h.env.CLINE_DIR!, 'rules');
    expect(readdirSync(rules).sort()).toEqual(['agent-rooms-wake.md', 'mine.md']);
    expect(readFileSync(join(rules, 'agent-rooms-wake.md'), 'utf8')).toContain('room room_abc');
    const sessions = h.env.CLINE_SESSION_DATA_DIR!;
    mkdirSync(join(sessions, 's1'));
    writeFileSync(join(sessions, 's1', 's1.json'), JSON.stringify({ model: 'm', metadata: { usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0 } } }));
    expect(h.usage!()).toMatchObject({ input_tokens: 1, output_tokens: 2, model: 'm' });
    h.cleanup();
    expect(existsSync(h.env.CLINE_DIR!)).toBe(false);
  });
});
