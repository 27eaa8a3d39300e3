/**
 * Every /v1 endpoint's contract, by capability (docs/architecture.md "Contracts"). The server's
 * routes are generated from these (src-main/core/usecase/define.ts); the window's client is typed
 * from them (src-renderer/src/client.ts). This module exports `contracts` only: the window's
 * build replaces it by the table of methods and paths (src-renderer/vite.config.ts).
 */
import { tasks } from './tasks.js';
import { review } from './review.js';
import { rooms } from './rooms.js';
import { messages } from './messages.js';
import { needs } from './needs.js';
import { wakes } from './wakes.js';
import { feedback } from './feedback.js';
import { backup } from './backup.js';
import { owners } from './owners.js';
import { agents } from './agents.js';
import { events } from './events.js';
import { files } from './files.js';
import { search } from './search.js';
import { workspace } from './workspace.js';
import { reservations } from './reservations.js';
import { context } from './context.js';

export const contracts = { tasks, review, wakes, feedback, backup, rooms, messages, needs, owners, agents, events, files, search, workspace, reservations, context };
