/**
 * Compile-time checks of the event contract (shared/core-events.ts), type-checked by `npm run lint`.
 * The bus accepts only declared events, and the UI's handler map only declared keys (with
 * every UI event required): those two checks live where the code is. Here: the run-time list
 * names every declared event, and the data the core emits is the data the UI reads.
 */
import type { CORE_EVENT_TYPES, CoreEventData, CoreEventType, SERVER_ONLY_EVENTS, UiEventType } from '../../shared/core-events.js';
import type { MessageRecord } from '../../src-main/core/messages/service.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/** Compiles only when the server's shape `S` is accepted where the UI expects `U`. */
type Accepts<U, S extends U> = [U, S];

export type EventContract = [
  Holds<Same<(typeof CORE_EVENT_TYPES)[number], CoreEventType>>,
  Holds<Same<UiEventType | (typeof SERVER_ONLY_EVENTS)[number], CoreEventType>>,
  Accepts<CoreEventData['message.created'], MessageRecord>,
];
