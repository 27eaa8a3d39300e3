// The desktop shell's decisions, as plain functions of data. No electron import here, so
// these run (and are tested) under plain node; main.ts only carries them out.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CSP, DEFAULT_PORT } from '../core/start.js';

export const APP_NAME = 'Agent Rooms';
/** What the login item passes, so a start at login stays in the tray. */
export const HIDDEN_FLAG = '--hidden';
export const LOGIN_ITEM_ARGS = [HIDDEN_FLAG];
/** Stands in for the agent credential (`ark_…`) that the owner creates in the UI. */
export const CREDENTIAL_PLACEHOLDER = '<agent credential>';

export interface DesktopOptions {
  /** Where the core keeps its data; undefined: Electron's userData folder. */
  home?: string;
  port: number;
  /** The port came from AGENT_ROOMS_PORT or --port rather than the default. */
  portConfigured: boolean;
  /** Start in the tray without opening the window (a start at login). */
  hidden: boolean;
}

function parsePort(v: string, from: string): number {
  if (!/^\d+$/.test(v) || Number(v) > 65535) throw new Error(`${from} takes 0 to 65535, got "${v}"`);
  return Number(v);
}

/** The value of `--name V` or `--name=V` in argv, the last one winning. */
function flagValue(argv: readonly string[], name: string): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === name && i + 1 < argv.length) found = argv[++i];
    else if (a.startsWith(name + '=')) found = a.slice(name.length + 1);
  }
  return found;
}

/**
 * The desktop's options from its command line and environment, as the headless CLI reads
 * them: `--port N` / AGENT_ROOMS_PORT, `--home DIR` / AGENT_ROOMS_HOME. Chromium's own
 * switches in argv are ignored.
 */
export function desktopOptions(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): DesktopOptions {
  const portFlag = flagValue(argv, '--port');
  const portEnv = env.AGENT_ROOMS_PORT;
  let port = DEFAULT_PORT;
  if (portFlag !== undefined) port = parsePort(portFlag, '--port');
  else if (portEnv !== undefined && portEnv !== '') port = parsePort(portEnv, 'AGENT_ROOMS_PORT');
  const home = flagValue(argv, '--home') ?? (env.AGENT_ROOMS_HOME || undefined);
  return {
    home,
    port,
    portConfigured: portFlag !== undefined || (portEnv !== undefined && portEnv !== ''),
    hidden: argv.includes(HIDDEN_FLAG),
  };
}

/**
 * What the running app does when a second copy is launched (Electron hands it the second
 * copy's argv): a start at login while we already run changes nothing; any other launch
 * means the user wants the window.
 */
export function secondInstanceAction(argv: readonly string[]): 'focus' | 'none' {
  return argv.includes(HIDDEN_FLAG) ? 'none' : 'focus';
}

export interface Started<T> {
  running: T;
  /** Set when the asked-for port was taken and a free one was used instead. */
  fellBackFrom?: number;
}

/**
 * Starts the core on the asked-for port; when that port is taken (another program, or a
 * headless agent-rooms), starts it on a free port instead so the app still comes up.
 */
export async function startWithPortFallback<T>(start: (port: number) => Promise<T>, port: number): Promise<Started<T>> {
  try {
    return { running: await start(port) };
  } catch (err) {
    if (port === 0 || (err as NodeJS.ErrnoException)?.code !== 'EADDRINUSE') throw err;
    return { running: await start(0), fellBackFrom: port };
  }
}

/** What the user is told when the app runs on another port than the one asked for. */
export function portFallbackNotice(asked: number, actual: number): { title: string; body: string } {
  return {
    title: `${APP_NAME} is on port ${actual}`,
    body: `Port ${asked} is in use by another program, so ${APP_NAME} started on port ${actual} for this run. MCP clients set up for port ${asked} need the new URL (copy it from the tray menu).`,
  };
}

export function mcpUrl(baseUrl: string, host?: string): string {
  return `${baseUrl}/mcp${host ? `/${host}` : ''}`;
}

/** The command that registers this server with Claude Code over streamable HTTP. */
export function claudeMcpAddCommand(baseUrl: string): string {
  return `claude mcp add --transport http agent-rooms ${mcpUrl(baseUrl, 'claude-code')} --header "Authorization: Bearer ${CREDENTIAL_PLACEHOLDER}"`;
}

export type MenuCommandId = 'open-window' | 'copy-sign-in-link' | 'copy-mcp-url' | 'copy-claude-command' | 'open-data-folder' | 'start-at-login' | 'quit';

export interface TrayItem {
  id: MenuCommandId | 'status';
  label: string;
  kind: 'normal' | 'checkbox' | 'separator' | 'label';
  checked?: boolean;
}

export interface TrayState {
  baseUrl: string;
  openAtLogin: boolean;
}

/** The tray (menu bar) menu, top to bottom. */
export function trayMenu(state: TrayState): TrayItem[] {
  return [
    { id: 'status', label: `Running on ${state.baseUrl}`, kind: 'label' },
    { id: 'open-window', label: `Open ${APP_NAME}`, kind: 'normal' },
    // A one-time link for a browser (the window itself is signed in): docs/ui.md "Sign-in".
    { id: 'copy-sign-in-link', label: 'Copy sign-in link for a browser', kind: 'normal' },
    { id: 'status', label: '', kind: 'separator' },
    { id: 'copy-mcp-url', label: 'Copy MCP URL', kind: 'normal' },
    { id: 'copy-claude-command', label: 'Copy "claude mcp add" command', kind: 'normal' },
    { id: 'open-data-folder', label: 'Open data folder', kind: 'normal' },
    { id: 'status', label: '', kind: 'separator' },
    { id: 'start-at-login', label: 'Start at login', kind: 'checkbox', checked: state.openAtLogin },
    { id: 'status', label: '', kind: 'separator' },
    { id: 'quit', label: `Quit ${APP_NAME}`, kind: 'normal' },
  ];
}

export type MenuAction =
  | { kind: 'show-window' }
  | { kind: 'copy'; text: string }
  /** Minted when clicked (each link works once, for five minutes), then copied. */
  | { kind: 'copy-sign-in-link' }
  | { kind: 'open-folder'; path: string }
  | { kind: 'set-open-at-login'; enabled: boolean; args: string[] }
  | { kind: 'quit' };

/** What a tray command does, given where the core runs and where its data lives. */
export function menuAction(id: MenuCommandId, ctx: { baseUrl: string; home: string; openAtLogin: boolean }): MenuAction {
  switch (id) {
    case 'open-window':
      return { kind: 'show-window' };
    case 'copy-sign-in-link':
      return { kind: 'copy-sign-in-link' };
    case 'copy-mcp-url':
      return { kind: 'copy', text: mcpUrl(ctx.baseUrl) };
    case 'copy-claude-command':
      return { kind: 'copy', text: claudeMcpAddCommand(ctx.baseUrl) };
    case 'open-data-folder':
      return { kind: 'open-folder', path: ctx.home };
    case 'start-at-login':
      return { kind: 'set-open-at-login', enabled: !ctx.openAtLogin, args: LOGIN_ITEM_ARGS };
    case 'quit':
      return { kind: 'quit' };
  }
}

/**
 * Where a navigation or a new window may go: the core's own origin stays in the app;
 * web and mail links go to the user's browser; anything else (file:, javascript:, custom
 * schemes, other local ports) goes nowhere.
 */
export function navigationDecision(target: string, coreOrigin: string): 'allow' | 'external' | 'deny' {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return 'deny';
  }
  if (url.origin === coreOrigin) return 'allow';
  if (url.protocol === 'mailto:') return 'external';
  if ((url.protocol === 'https:' || url.protocol === 'http:') && !isLoopbackHost(url.hostname)) return 'external';
  return 'deny';
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

export type ResponseHeaders = Record<string, string | string[]>;

/**
 * The response headers with the UI's Content-Security-Policy set on everything the core
 * serves, whatever the core itself sent (defence in depth: a page the core forgot to
 * protect is still protected inside the app).
 */
export function withCsp(headers: ResponseHeaders | undefined, url: string, coreOrigin: string): ResponseHeaders {
  const out: ResponseHeaders = { ...(headers ?? {}) };
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return out;
  }
  if (origin !== coreOrigin) return out;
  for (const k of Object.keys(out)) if (k.toLowerCase() === 'content-security-policy') delete out[k];
  out['Content-Security-Policy'] = [CSP];
  return out;
}

/** Where the Electron binary of node_modules/electron is, without triggering its download. */
export function findElectronBinary(root: string, env: Readonly<Record<string, string | undefined>>): { path: string } | { missing: string } {
  const pkg = join(root, 'node_modules', 'electron');
  if (!existsSync(join(pkg, 'package.json'))) return { missing: 'the electron package is not installed (npm install)' };
  const pathFile = join(pkg, 'path.txt');
  const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  const bin = override ? join(override, rel || 'electron') : rel ? join(pkg, 'dist', rel) : undefined;
  if (!bin || !existsSync(bin)) {
    return { missing: "the Electron binary was never downloaded (it is fetched from Electron's release host on first use, and that download has not happened or has failed)" };
  }
  return { path: bin };
}

export function electronMissingMessage(reason: string): string {
  return [
    `agent-rooms desktop: cannot start: ${reason}.`,
    'Fetch the binary with "npx install-electron" on a machine that can reach Electron\'s downloads,',
    'or point ELECTRON_OVERRIDE_DIST_PATH at a folder holding an Electron build of the version in package.json.',
    'The headless server needs none of this: "npm run serve".',
  ].join('\n');
}

/** Advice for the one start failure a developer meets first: better-sqlite3 built for Node, not Electron. */
export function startFailureAdvice(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/NODE_MODULE_VERSION|compiled against a different Node\.js version/.test(message)) {
    return `${message}\n\nbetter-sqlite3 is built for Node, not for Electron. For the desktop in development run "npx @electron/rebuild --only better-sqlite3", and "npm rebuild better-sqlite3" to go back to Node for the tests. Packaged apps are rebuilt by electron-builder.`;
  }
  return message;
}

/** One argument of a desktop entry's Exec line, quoted as the XDG Desktop Entry spec asks. */
function execArg(arg: string): string {
  const escaped = arg.replace(/%/g, '%%');
  if (!/[\s"'\\`$<>~|&;*?#()]/.test(escaped) && escaped !== '') return escaped;
  return `"${escaped.replace(/(["`$\\])/g, '\\$1')}"`;
}

/** The XDG autostart entry (~/.config/autostart/agent-rooms.desktop) that starts the app at login on Linux. */
export function linuxAutostartEntry(command: readonly string[]): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    `Name=${APP_NAME}`,
    'Comment=Local collaboration rooms for software agents and humans',
    `Exec=${command.map(execArg).join(' ')}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}
