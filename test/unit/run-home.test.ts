import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { codexOtherServerArgs, geminiRunHome, wakeInstructions } from '../../src-main/core/wakes/run-home.js';
import { expandRunnerArgs, RUNNER_PRESETS } from '../../src-main/core/wakes/presets.js';

const envelope = {
  wake_id: 'wake_1',
  plate: 'ADAO-AGT-K2Q7MZ',
  handle: '@rev(ada)',
  room: 'room_1',
  host: 'gemini',
  trigger: 'assignment' as const,
  context_version: 3,
  task_id: 'task_1',
};

describe('per-run host settings', () => {
  it('the envelope text names the room, the handle, the wake and the task, and the server to act through', () => {
    const t = wakeInstructions(envelope, 'agent-rooms-adao-agt-k2q7mz');
    for (const s of ['room_1', '`@rev(ada)`', 'wake_1', 'task_1', 'agent-rooms-adao-agt-k2q7mz', 'complete_task']) expect(t).toContain(s);
  });

  it('preset args get the server name and the envelope; the codex one as a TOML string', () => {
    const args = expandRunnerArgs(RUNNER_PRESETS['codex exec'].args, { mcpBaseUrl: 'http://127.0.0.1:1/mcp/codex', server: 'agent-rooms-x', instructions: 'line "one"\nline two' });
    expect(args).toContain('mcp_servers.agent-rooms-x.url="http://127.0.0.1:1/mcp/codex"');
    expect(args).toContain('mcp_servers.agent-rooms-x.default_tools_approval_mode="approve"');
    expect(args).toContain('developer_instructions="line \\"one\\"\\nline two"');
    const claude = expandRunnerArgs(RUNNER_PRESETS['claude -p'].args, { mcpBaseUrl: 'u', server: 'agent-rooms-x', instructions: 'hi' });
    expect(JSON.parse(claude[claude.indexOf('--mcp-config') + 1]!).mcpServers).toHaveProperty(['agent-rooms-x']);
    expect(claude.slice(-4)).toEqual(['--allowedTools', 'mcp__agent-rooms-x', '--append-system-prompt', 'hi']);
  });

  it('a Gemini run home keeps the user settings, adds the room server with trust on it only, links the rest, and goes away', () => {
    const user = mkdtempSync(join(tmpdir(), 'ar-gemini-user-'));
    try {
      mkdirSync(join(user, '.gemini'));
      writeFileSync(join(user, '.gemini', 'settings.json'), JSON.stringify({ model: { name: 'x' }, mcpServers: { other: { httpUrl: 'http://o' }, 'agent-rooms-y': { httpUrl: 'http://y' } } }));
      writeFileSync(join(user, '.gemini', 'GEMINI.md'), 'my global notes');
      writeFileSync(join(user, '.gemini', 'oauth_creds.json'), '{}');
      const home = geminiRunHome({ env: { HOME: user }, server: 'agent-rooms-x', mcpBaseUrl: 'http://127.0.0.1:1/mcp/gemini', instructions: 'woken in room_1' });
      const dir = join(home.env.GEMINI_CLI_HOME!, '.gemini');
      const settings = JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'));
      expect(settings.model).toEqual({ name: 'x' });
      expect(settings.mcpServers.other).toEqual({ httpUrl: 'http://o' });
      // Another agent's room server (connect wrote it for that agent) is not in this agent's run.
      expect(settings.mcpServers).not.toHaveProperty(['agent-rooms-y']);
      expect(settings.mcpServers['agent-rooms-x']).toEqual({ httpUrl: 'http://127.0.0.1:1/mcp/gemini', headers: { Authorization: 'Bearer ${AGENT_ROOMS_CREDENTIAL}' }, trust: true });
      expect(readFileSync(join(dir, 'GEMINI.md'), 'utf8')).toMatch(/^my global notes[\s\S]*woken in room_1/);
      expect(lstatSync(join(dir, 'oauth_creds.json')).isSymbolicLink()).toBe(true);
      // The user's own files are untouched.
      expect(JSON.parse(readFileSync(join(user, '.gemini', 'settings.json'), 'utf8')).mcpServers).toEqual({ other: { httpUrl: 'http://o' }, 'agent-rooms-y': { httpUrl: 'http://y' } });
      home.cleanup();
      expect(existsSync(home.env.GEMINI_CLI_HOME!)).toBe(false);
      expect(existsSync(join(user, '.gemini', 'oauth_creds.json'))).toBe(true);
    } finally {
      rmSync(user, { recursive: true, force: true });
    }
  });

  it("a Codex run turns off the other agents' room servers of the user's config.toml, and nothing else", () => {
    const user = mkdtempSync(join(tmpdir(), 'ar-codex-user-'));
    try {
      expect(codexOtherServerArgs({ HOME: user }, 'agent-rooms-x')).toEqual([]);
      mkdirSync(join(user, '.codex'));
      writeFileSync(
        join(user, '.codex', 'config.toml'),
        [
          'model = "gpt"',
          '[mcp_servers.agent-rooms-x]',
          'url = "http://127.0.0.1:1/mcp/codex"',
          '[mcp_servers.agent-rooms-y]',
          'url = "http://127.0.0.1:1/mcp/codex"',
          '  [ mcp_servers . "agent-rooms-z" ]',
          '[mcp_servers.agent-rooms-y.env]',
          '[mcp_servers.playwright]',
          'command = "npx"',
          '[mcp_servers."agent-rooms-bad name"]',
          '# [mcp_servers.agent-rooms-commented]',
        ].join('\n'),
      );
      expect(codexOtherServerArgs({ HOME: user }, 'agent-rooms-x')).toEqual(['-c', 'mcp_servers.agent-rooms-y.enabled=false', '-c', 'mcp_servers.agent-rooms-z.enabled=false']);
      // CODEX_HOME wins over HOME, as Codex reads it.
      expect(codexOtherServerArgs({ HOME: user, CODEX_HOME: join(user, 'elsewhere') }, 'agent-rooms-x')).toEqual([]);
    } finally {
      rmSync(user, { recursive: true, force: true });
    }
  });
});
