// The desktop app: one instance, the core started in-process, a window on the UI the core
// serves (signed in as the primary owner), a tray that stays when the window closes, and
// native notifications for what needs the human. The decisions live in shell.ts and
// notify.ts; this file only carries them out with Electron.
import { app, BrowserWindow, Menu, Notification, Tray, clipboard, dialog, nativeImage, session, shell, type MenuItemConstructorOptions } from 'electron';
import { appendFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HomeError, startCore, type RunningCore } from '../core/start.js';
import {
  APP_NAME,
  desktopOptions,
  linuxAutostartEntry,
  menuAction,
  navigationDecision,
  portFallbackNotice,
  secondInstanceAction,
  startFailureAdvice,
  startWithPortFallback,
  trayMenu,
  withCsp,
  type MenuAction,
  type MenuCommandId,
  type TrayItem,
} from './shell.js';
import { notificationFor, NotificationGate, type DesktopNotification } from './notify.js';
import { ICON_PNG_DATA_URL } from './icon.js';

const here = dirname(fileURLToPath(import.meta.url));
const options = desktopOptions(process.argv.slice(1), process.env);

app.setName(APP_NAME);
// One folder per install, the same in development and packaged: the core's data home is
// Electron's userData; Chromium's own profile (cookies, caches) gets a subfolder of it.
const home = options.home ?? join(app.getPath('appData'), APP_NAME);
app.setPath('userData', home);
app.setPath('sessionData', join(home, 'browser'));

let running: RunningCore | undefined;
let coreOrigin = '';
let window: BrowserWindow | undefined;
let tray: Tray | undefined;
let quitting = false;
let coreClosed = false;
let shuttingDown: Promise<void> | undefined;
const icon = nativeImage.createFromDataURL(ICON_PNG_DATA_URL);

function log(line: string) {
  process.stderr.write(`agent-rooms desktop: ${line}\n`);
  try {
    mkdirSync(home, { recursive: true });
    appendFileSync(join(home, 'desktop.log'), `${new Date().toISOString()} ${line}\n`);
  } catch {
    // logging must never take the app down
  }
}

function notify(n: DesktopNotification) {
  log(`notify: ${n.title}`);
  if (!Notification.isSupported()) return;
  const shown = new Notification({ title: n.title, body: n.body, icon });
  shown.on('click', () => showWindow());
  shown.show();
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: APP_NAME,
    icon,
    webPreferences: {
      preload: join(here, 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
      devTools: !app.isPackaged,
    },
  });
  win.once('ready-to-show', () => win.show());
  // Closing the window leaves the app (and the core the agents talk to) running in the tray.
  win.on('close', (e) => {
    if (quitting) return;
    e.preventDefault();
    win.hide();
  });
  win.on('closed', () => {
    if (window === win) window = undefined;
  });
  // The one-time link is minted in-process (not through the API), so the page trades it for a
  // session token without asking: signed in as the primary owner without ever showing a link.
  void win.loadURL(running!.loginUrl()).catch((err: unknown) => log(`window failed to load: ${(err as Error).message}`));
  return win;
}

function showWindow() {
  if (!running) return;
  if (!window || window.isDestroyed()) window = createWindow();
  else {
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  }
}

function openAtLogin(): boolean {
  if (process.platform === 'linux') return linuxAutostart.enabled();
  return app.getLoginItemSettings().openAtLogin;
}

// Electron's login items cover macOS and Windows; on Linux the XDG autostart entry does it.
const linuxAutostart = {
  file: () => join(app.getPath('appData'), 'autostart', 'agent-rooms.desktop'),
  exec: () => [process.env.APPIMAGE ?? process.execPath, ...(app.isPackaged ? [] : [join(here, 'main.js')])],
  enabled(): boolean {
    return existsSync(this.file());
  },
  set(enabled: boolean, args: string[]) {
    const file = this.file();
    if (!enabled) return rmSync(file, { force: true });
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, linuxAutostartEntry([...this.exec(), ...args]));
  },
};

async function runMenuAction(action: MenuAction) {
  switch (action.kind) {
    case 'show-window':
      return showWindow();
    case 'copy':
      return clipboard.writeText(action.text);
    case 'copy-sign-in-link':
      // Minted in-process by the machine's user, like `agent-rooms open`: it signs the primary owner in at once.
      if (running) clipboard.writeText(running.loginUrl());
      return;
    case 'open-folder': {
      const err = await shell.openPath(action.path);
      if (err) log(`open data folder: ${err}`);
      return;
    }
    case 'set-open-at-login':
      if (process.platform === 'linux') linuxAutostart.set(action.enabled, action.args);
      else app.setLoginItemSettings({ openAtLogin: action.enabled, args: action.args });
      return refreshTray();
    case 'quit':
      return app.quit();
  }
}

function toMenuItem(item: TrayItem): MenuItemConstructorOptions {
  if (item.kind === 'separator') return { type: 'separator' };
  if (item.kind === 'label') return { label: item.label, enabled: false };
  const id = item.id as MenuCommandId;
  return {
    label: item.label,
    type: item.kind === 'checkbox' ? 'checkbox' : 'normal',
    checked: item.checked,
    click: () => {
      const action = menuAction(id, { baseUrl: running!.baseUrl, home, openAtLogin: openAtLogin() });
      runMenuAction(action).catch((err: unknown) => log(`menu ${id}: ${(err as Error).message}`));
    },
  };
}

function refreshTray() {
  if (!tray || !running) return;
  tray.setContextMenu(Menu.buildFromTemplate(trayMenu({ baseUrl: running.baseUrl, openAtLogin: openAtLogin() }).map(toMenuItem)));
}

/** Every web contents, present and future: navigation stays on the core, the rest opens in the browser. */
function lockDownWebContents() {
  app.on('web-contents-created', (_e, contents) => {
    const guard = (e: { url: string; preventDefault: () => void }) => {
      const decision = navigationDecision(e.url, coreOrigin);
      if (decision === 'allow') return;
      e.preventDefault();
      if (decision === 'external') void shell.openExternal(e.url);
      else log(`navigation refused: ${e.url.slice(0, 80)}`);
    };
    contents.on('will-navigate', guard);
    contents.on('will-redirect', guard);
    contents.on('will-attach-webview', (e) => e.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      const decision = navigationDecision(url, coreOrigin);
      if (decision === 'external') void shell.openExternal(url);
      else if (decision === 'allow') showWindow();
      return { action: 'deny' };
    });
  });
  const ses = session.defaultSession;
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withCsp(details.responseHeaders, details.url, coreOrigin) });
  });
  ses.setPermissionRequestHandler((contents, permission, callback) => {
    // The UI's copy buttons (credentials, MCP URLs) are all it may ask for.
    callback(permission === 'clipboard-sanitized-write' && navigationDecision(contents.getURL(), coreOrigin) === 'allow');
  });
}

async function start() {
  await app.whenReady();
  lockDownWebContents();
  let fellBackFrom: number | undefined;
  try {
    const started = await startWithPortFallback((port) => startCore({ home, port, log }), options.port);
    running = started.running;
    fellBackFrom = started.fellBackFrom;
  } catch (err) {
    // A headless server already owns this home: show its UI instead of a second core.
    if (err instanceof HomeError && err.problem === 'HOME_IN_USE' && err.details.url) {
      log(`home in use by pid ${err.details.pid}: opening ${err.details.url}`);
      await shell.openExternal(err.details.url).catch(() => {});
      app.exit(0);
      return;
    }
    const advice = startFailureAdvice(err);
    log(`core failed to start: ${advice}`);
    dialog.showErrorBox(`${APP_NAME} could not start`, advice);
    app.exit(1);
    return;
  }
  coreOrigin = new URL(running.baseUrl).origin;
  // The same ready line as the headless server, for scripts and tests that start the app.
  process.stdout.write(`agent-rooms listening on ${running.baseUrl}\n`);
  log(`core on ${running.baseUrl}, home ${home}`);

  const gate = new NotificationGate();
  // The primary owner's events, none from a room they are only invited to (start.ts onOwnerEvent).
  running.onOwnerEvent((event, ownerId) => {
    const n = notificationFor(event, ownerId);
    if (n && gate.admit(n)) notify(n);
  });

  tray = new Tray(icon);
  tray.setToolTip(`${APP_NAME}: ${running.baseUrl}`);
  tray.on('click', () => showWindow());
  refreshTray();

  if (fellBackFrom !== undefined) {
    const n = portFallbackNotice(fellBackFrom, running.port);
    log(n.body);
    notify(n);
  }
  // macOS passes no arguments to login items: it says instead that it opened us at login.
  const atLogin = process.platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin === true;
  if (!options.hidden && !atLogin) showWindow();
}

async function shutdown() {
  try {
    await running?.close();
  } catch (err) {
    log(`shutdown: ${(err as Error).message}`);
  }
  coreClosed = true;
  tray?.destroy();
  app.quit();
}

if (!app.requestSingleInstanceLock()) {
  // Another copy owns this data home: it shows its window (second-instance) and we leave.
  app.quit();
} else {
  app.on('second-instance', (_e, argv) => {
    if (secondInstanceAction(argv) === 'focus') showWindow();
  });
  // No window is not a reason to stop: the agents still talk to the core.
  app.on('window-all-closed', () => {});
  app.on('activate', () => showWindow());
  app.on('before-quit', (e) => {
    quitting = true;
    if (coreClosed || !running) return;
    // Finish in-flight requests and close SQLite cleanly before the process goes.
    e.preventDefault();
    if (!shuttingDown) shuttingDown = shutdown();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());
  start().catch((err: unknown) => {
    log(`start failed: ${(err as Error).stack ?? err}`);
    app.exit(1);
  });
}
