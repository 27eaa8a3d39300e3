/**
 * Every /v1 endpoint's contract, by capability (docs/architecture.md "Contracts"). The server's
 * routes are generated from these (src-main/core/usecase/define.ts); the window's client is typed
 * from them (src-renderer/src/client.ts). This module exports `contracts` only: the window's
 * build replaces it by the table of methods and paths (src-renderer/vite.config.ts).
 */
import { tasks } from './tasks.js';
import { rooms } from './rooms.js';
import { messages } from './messages.js';
import { needs } from './needs.js';

export const contracts = { tasks, rooms, messages, needs };
