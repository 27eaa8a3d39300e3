/**
 * Gemini CLI (docs/hosts.md "Gemini CLI"): `~/.gemini/settings.json` holds the connection and the
 * auth type a headless run needs; each run gets its own GEMINI_CLI_HOME (Gemini reads MCP
 * servers from settings files only), its stream-json output read for the transcript and usage.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { hostInfo } from '../../../shared/hosts.js';
import type { HostAdapter, JsonObject, RunHome } from './adapter.js';
import { bearerOf, getAt, homeOf, isOtherRoomServer, objectAt, outputFormatIn, readJsonLoose, REFUSAL_WORDS, refusalWords, setAt } from './files.js';

const info = hostInfo('gemini')!;

function settingsFile(env: NodeJS.ProcessEnv): string {
  return join(env.GEMINI_CLI_HOME || homeOf(env), '.gemini', 'settings.json');
}

/** Gemini's auth type for headless runs, from what the user's shell and ~/.gemini hold. */
function geminiAuthType(env: NodeJS.ProcessEnv, geminiDir: string): string | undefined {
  if (env.GOOGLE_GENAI_USE_VERTEXAI === 'true') return 'vertex-ai';
  if (env.GEMINI_API_KEY) return 'gemini-api-key';
  if (existsSync(join(geminiDir, 'oauth_creds.json'))) return 'oauth-personal';
  return undefined;
}

/**
 * Gemini CLI reads MCP servers from settings files only. Rather than edit the user's global
 * settings, each run gets its own GEMINI_CLI_HOME: `.gemini/settings.json` is the user's own
 * settings plus the room's server (trust: true on that entry only, headers reading the
 * credential from the environment), `.gemini/GEMINI.md` the user's global context plus the
 * wake's envelope, and every other entry of the user's `~/.gemini` (sign-in, accounts,
 * trusted folders) a symlink to the original.
 */
export function geminiRunHome(opts: { env: NodeJS.ProcessEnv; server: string; mcpBaseUrl: string; instructions: string }): RunHome {
  const userHome = opts.env.GEMINI_CLI_HOME || homeOf(opts.env);
  const userDir = join(userHome, '.gemini');
  const root = mkdtempSync(join(tmpdir(), 'agent-rooms-gemini-'));
  const dir = join(root, '.gemini');
  mkdirSync(dir, { mode: 0o700 });
  const own = new Set(['settings.json', 'GEMINI.md']);
  if (existsSync(userDir)) {
    for (const name of readdirSync(userDir)) {
      if (own.has(name)) continue;
      try {
        symlinkSync(join(userDir, name), join(dir, name));
      } catch {
        // one entry that cannot be linked does not stop the run
      }
    }
  }
  const settings = readJsonLoose(join(userDir, 'settings.json')) ?? {};
  const servers = (settings.mcpServers && typeof settings.mcpServers === 'object' ? settings.mcpServers : {}) as Record<string, unknown>;
  settings.mcpServers = {
    ...Object.fromEntries(Object.entries(servers).filter(([name]) => !isOtherRoomServer(name, opts.server))),
    [opts.server]: { httpUrl: opts.mcpBaseUrl, headers: { Authorization: 'Bearer ${AGENT_ROOMS_CREDENTIAL}' }, trust: true },
  };
  writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings, null, 2), { mode: 0o600 });
  let memory = '';
  try {
    memory = readFileSync(join(userDir, 'GEMINI.md'), 'utf8') + '\n\n';
  } catch {
    // no global context of the user's
  }
  writeFileSync(join(dir, 'GEMINI.md'), `${memory}# Agent Rooms wake\n\n${opts.instructions}\n`, { mode: 0o600 });
  return {
    env: { GEMINI_CLI_HOME: root },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export const geminiAdapter: HostAdapter = {
  ...info,
  version: { min: '0.61.0', checked: '0.61.0', re: /(\d+\.\d+\.\d+)/ },
  // `-p ""` reads the prompt from stdin; --skip-trust trusts the working folder for this run
  // only; the server entry (trust: true on it alone) and the envelope (GEMINI.md) live in a
  // per-run GEMINI_CLI_HOME seeded from the user's own ~/.gemini.
  // --output-format stream-json: one JSON event per line as the run goes (the live transcript),
  // the answer and the tokens in its last events (usage.ts). auto_edit adds write_file and replace
  // (no shell) and refuses paths outside the workspace (the working folder). No full: yolo runs
  // shell commands unconfined unless --sandbox finds a container runtime and its image, which
  // cannot be checked here (docs/hosts.md), so full is refused rather than run unconfined.
  presetDef: {
    host: 'gemini',
    command: 'gemini',
    args: ['--skip-trust', '--output-format', 'stream-json', '-p', ''],
    work: { at: 0, edit: ['--approval-mode', 'auto_edit'] },
  },
  connectEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GEMINI_BASE_URL', 'GOOGLE_CLOUD_PROJECT', 'GOOGLE_GENAI_USE_VERTEXAI', 'GEMINI_CLI_HOME'],
  async register({ plan, env, tools }) {
    const file = settingsFile(env);
    const w = plan.writes[0]!.json!;
    let problem: string | undefined;
    tools.mergeJson(file, (c: JsonObject) => {
      setAt(c, w.path, w.value);
      const authCfg = objectAt(objectAt(c, 'security'), 'auth');
      if (!authCfg.selectedType) {
        const t = geminiAuthType(env, dirname(file));
        if (t) {
          authCfg.selectedType = t;
          tools.out(`set security.auth.selectedType = "${t}" (Gemini CLI refuses headless runs without it)`);
        } else {
          problem = 'Gemini CLI has no auth type for headless runs: set GEMINI_API_KEY or sign in once with `gemini`, then connect again';
        }
      }
    });
    tools.out(`wrote ${plan.server} into ${file} (mode 600)`);
    return problem;
  },
  configEntry(server, plate, env) {
    const file = settingsFile(env);
    const settings = readJsonLoose(file);
    const e = getAt(settings, ['mcpServers', server]);
    if (!e) return undefined;
    const selected = getAt(settings, ['security', 'auth', 'selectedType']);
    return {
      file,
      credential: bearerOf(e),
      missing: selected
        ? undefined
        : { what: 'security.auth.selectedType (Gemini CLI refuses headless runs without it)', fix: `set GEMINI_API_KEY (or sign in with gemini), then agent-rooms connect gemini --agent ${plate}` },
    };
  },
  streamFormat(args) {
    const output = outputFormatIn(args, true);
    return output === 'json' ? 'gemini-json' : output === 'stream-json' ? 'gemini-stream-json' : 'text';
  },
  runHome: (c) => geminiRunHome(c),
  toolsRefused(o, server) {
    // A tool_result of the room's server (its id starts with the tool's name, `mcp_<server>_<tool>`)
    // that a policy of the user's refused.
    if (o.type !== 'tool_result' || o.status !== 'error' || typeof o.tool_id !== 'string' || !o.tool_id.startsWith(`mcp_${server}_`)) return undefined;
    const err = o.error && typeof o.error === 'object' ? (o.error as Record<string, unknown>).message : undefined;
    const words = typeof err === 'string' ? err : typeof o.output === 'string' ? o.output : '';
    return REFUSAL_WORDS.test(words) ? refusalWords(words) : undefined;
  },
  quirks: [
    'A model-routing request and a next-speaker check precede the main turn.',
    '`Ripgrep is not available` and 256-colour warnings go to stderr.',
    'Without `"trust": true` on the server entry a headless run leaves the server\'s tools out of the model request.',
  ],
};
