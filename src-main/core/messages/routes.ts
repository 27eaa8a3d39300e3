import type { Route } from '../http/router.js';
import { readRoomUseCase, sendMessageUseCase } from './use-cases.js';
import { messageDeliveriesUseCase } from './deliveries.js';
import { listTestWakesUseCase, startTestWakeUseCase } from './test-wakes.js';

/** A room's messages for humans: the history and posting, generated from the use cases the agents' tools share (messages/use-cases.ts). */
export const messageRoutes: Route[] = [readRoomUseCase.route, sendMessageUseCase.route, messageDeliveriesUseCase.route, startTestWakeUseCase.route, listTestWakesUseCase.route];
