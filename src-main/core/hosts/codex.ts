/**
 * Codex (docs/hosts.md "Codex"): `codex mcp add … --bearer-token-env-var NAME` registers the
 * server without a secret, the credential lives in `~/.codex/.env` (Codex loads it at start);
 * `codex exec` runs headless with the server given as `-c` overrides.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { codexTokenVar, hostInfo } from '../../../shared/hosts.js';
import type { HostAdapter } from './adapter.js';
import { homeOf, isOtherRoomServer, readSettingsText, recordOf, REFUSAL_WORDS, refusalWords } from './files.js';

const info = hostInfo('codex')!;

function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME || join(homeOf(env), '.codex');
}

/**
 * `-c` overrides that turn off, for one Codex run, the other agents' room servers in the user's
 * `config.toml` (Codex has no flag to use only the servers given on the command line).
 */
export function codexOtherServerArgs(env: NodeJS.ProcessEnv, server: string): string[] {
  const text = readSettingsText(join(codexHome(env), 'config.toml'));
  if (!text) return [];
  const names = new Set<string>();
  for (const m of text.matchAll(/^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*(?:"([^"\n]+)"|'([^'\n]+)'|([A-Za-z0-9_-]+))/gm)) names.add((m[1] ?? m[2] ?? m[3])!);
  return [...names]
    .filter((n) => isOtherRoomServer(n, server) && /^[A-Za-z0-9_-]+$/.test(n))
    .flatMap((n) => ['-c', `mcp_servers.${n}.enabled=false`]);
}

/** Args of `codex exec --json` (or its older `--experimental-json`). */
const codexJson = (args: readonly string[]) => args.includes('exec') && (args.includes('--json') || args.includes('--experimental-json'));

/** A command that is Codex's CLI (the preset, or an owner's own command named `codex`). */
const isCodexCommand = (command: string) => /(^|[\\/])codex(\.exe|\.cmd)?$/i.test(command);

export const codexAdapter: HostAdapter = {
  ...info,
  version: { min: '0.169.0', checked: '0.169.0', re: /(\d+\.\d+\.\d+)/ },
  // Codex takes the server as -c overrides (no file edit); approval "approve" is set on this
  // server only; outside a git repository codex exec refuses to start without --skip-git-repo-check.
  // --json: events as JSON lines, whose turn.completed events carry the tokens used.
  presetDef: {
    host: 'codex',
    command: 'codex',
    args: [
      'exec',
      '--json',
      '--skip-git-repo-check',
      '-c',
      'mcp_servers.{server}.url="{mcp_base_url}"',
      '-c',
      'mcp_servers.{server}.bearer_token_env_var="AGENT_ROOMS_CREDENTIAL"',
      '-c',
      'mcp_servers.{server}.default_tools_approval_mode="approve"',
      '-c',
      'developer_instructions={wake_instructions_toml}',
      '-',
    ],
    // Codex reads and edits through its own commands (shell, apply_patch), run in its sandbox:
    // workspace-write confines writes to the working folder, with /tmp and $TMPDIR taken out of it
    // (else writable). It has no edit mode without commands that can still read a file (with
    // --disable shell_tool a model reads nothing), so edit runs them in the sandbox with no
    // network; full adds the network (docs/hosts.md "Work policies").
    work: {
      at: 1,
      edit: ['--sandbox', 'workspace-write', '-c', 'sandbox_workspace_write.exclude_slash_tmp=true', '-c', 'sandbox_workspace_write.exclude_tmpdir_env_var=true'],
      full: [
        '--sandbox',
        'workspace-write',
        '-c',
        'sandbox_workspace_write.exclude_slash_tmp=true',
        '-c',
        'sandbox_workspace_write.exclude_tmpdir_env_var=true',
        '-c',
        'sandbox_workspace_write.network_access=true',
      ],
      editSandbox: { commands: [], platforms: ['linux', 'darwin'] },
      fullSandbox: { commands: [], platforms: ['linux', 'darwin'] },
    },
  },
  connectEnv: ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'CODEX_HOME'],
  async register({ plan, cli, credential, env, tools }) {
    if (!cli) return 'codex is not on PATH';
    // A server of the same name from an earlier connect is replaced, not duplicated.
    await tools.run([cli, 'mcp', 'remove', plan.server]);
    const add = plan.runs[0]!;
    const r = await tools.run([cli, ...add.slice(1)]);
    if (r.code !== 0) throw new Error(`codex mcp add failed (exit ${r.code}): ${(r.stderr || r.stdout).trim().split('\n').pop() ?? ''}`);
    const file = join(codexHome(env), '.env');
    const line = plan.writes[0]!.envLine!;
    tools.setEnvLine(file, line.name, credential);
    tools.out(`registered ${plan.server} with codex; its token variable ${line.name} is set in ${file} (mode 600, Codex loads it at start)`);
    return undefined;
  },
  configEntry(_server, plate, env) {
    const file = join(codexHome(env), '.env');
    if (!existsSync(file)) return undefined;
    const tokenVar = codexTokenVar(plate);
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
    const line = text.split('\n').find((l) => l.startsWith(`${tokenVar}=`) || l.startsWith(`export ${tokenVar}=`));
    return line ? { file, credential: line.slice(line.indexOf('=') + 1).trim().replace(/^['"]|['"]$/g, '') } : undefined;
  },
  streamFormat(args, preset) {
    return preset || codexJson(args) ? 'codex-json' : 'text';
  },
  recognizes: (args) => (codexJson(args) ? 'codex-json' : undefined),
  // Codex also loads every server of the user's config.toml: in a `codex exec` run of this agent (the
  // preset or a command of the owner's own) the other agents' room servers are turned off.
  runArgs({ env, server, preset, command, args }) {
    return (preset || isCodexCommand(command)) && args[0] === 'exec' ? codexOtherServerArgs(env, server) : [];
  },
  toolsRefused(o, server) {
    // An MCP tool call of the room's server that Codex's approval policy refused: `declined`, or
    // failed with its approval words ("MCP tool call requires approval, but approval policy is never").
    if (o.type !== 'item.completed') return undefined;
    const item = recordOf(o.item);
    if (!item || item.type !== 'mcp_tool_call' || item.server !== server) return undefined;
    const error = recordOf(item.error)?.message ?? item.error;
    const words = typeof error === 'string' ? error : '';
    if (item.status === 'declined') return refusalWords(words || `${server}.${String(item.tool)} declined`);
    if (item.status === 'failed' && REFUSAL_WORDS.test(words) && /approv|declin|reject|denied/i.test(words)) return refusalWords(words);
    return undefined;
  },
  quirks: [
    'Tools with readOnlyHint: true run without approval even without the approval override.',
    'A server\'s tools reach the model as one namespace tool `mcp__<server with _ for ->`.',
    'Warns `Refusing to create helper binaries under temporary dir "/tmp"` when CODEX_HOME is under /tmp (harmless).',
  ],
};
