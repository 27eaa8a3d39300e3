/**
 * Cursor (docs/hosts.md "Cursor"): `~/.cursor/mcp.json` holds the connection, which
 * `cursor-agent -p` reads (it has no other way to be given a server). Its CLI is not on npm,
 * so the preset is not run in test/hosts/.
 */
import { join } from 'node:path';
import { hostInfo } from '../../../shared/hosts.js';
import type { HostAdapter } from './adapter.js';
import { bearerOf, getAt, homeOf, readJsonLoose, writePlanEntry } from './files.js';

const info = hostInfo('cursor')!;

const configFile = (env: NodeJS.ProcessEnv) => join(homeOf(env), '.cursor', 'mcp.json');

export const cursorAdapter: HostAdapter = {
  ...info,
  version: { min: '0.0.0', checked: 'not checked (not on npm)', re: /(\d+\.\d+\.\d+)/ },
  // cursor-agent reads MCP servers from .cursor/mcp.json only (agent-rooms connect cursor writes
  // it); --approve-mcps approves the configured servers for the headless run.
  presetDef: { host: 'cursor', command: 'cursor-agent', args: ['-p', '--output-format', 'text', '--approve-mcps'] },
  connectEnv: ['CURSOR_API_KEY'],
  configuredByFile: true,
  async register({ plan, env, tools }) {
    const file = configFile(env);
    writePlanEntry({ plan, tools }, file);
    return undefined;
  },
  configEntry(server, _plate, env) {
    const file = configFile(env);
    const e = getAt(readJsonLoose(file), ['mcpServers', server]);
    return e ? { file, credential: bearerOf(e) } : undefined;
  },
  streamFormat: () => 'text',
  quirks: ['No system-prompt flag: the envelope reaches a custom runner through AGENT_ROOMS_WAKE only.', 'Not published on npm: the preset is untested against the real CLI.'],
};
