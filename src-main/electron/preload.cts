// Runs in the sandboxed renderer before the UI. Sandboxed preloads must be CommonJS (hence
// .cts). The UI talks to the core over HTTP like any browser, so the bridge is deliberately
// tiny: it only tells the UI that it runs inside the desktop app.
import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('agentRoomsDesktop', Object.freeze({ desktop: true, platform: process.platform }));
