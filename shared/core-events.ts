/**
 * The events of the core bus (`core.bus`) and of the UI's stream (`GET /v1/events`, where the
 * SSE event name is the type). One map names every event and its data, so an emitter of an
 * unknown event, or a UI handler for an event nobody emits, fails to compile.
 */
import type { Message } from './api-types.js';

/** Durable context classes a `context.changed` reports (rooms/store.ts `touchRoom`). */
export type ContextClass = 'focus' | 'decisions';

/** Each event's type and the data it carries (`undefined`: none). */
export interface CoreEventData {
  /** A message was posted (room). */
  'message.created': Message;
  /** The rooms an owner sees changed: created, renamed, left (owners). */
  'rooms.changed': undefined;
  /** A room's humans or agents changed (room). */
  'members.changed': undefined;
  /** An agent's live instances in a room came or went (room). */
  'instances.changed': { plate: string };
  /** An owner's Trust in a room changed (room). */
  'trust.changed': undefined;
  /** A task of the room changed: created, edited, claimed, moved, archived (room). */
  'board.changed': undefined;
  /** The room's files changed (room). */
  'files.changed': undefined;
  /** The room's workspace settings changed (room). */
  'workspace.changed': undefined;
  /** The room's path reservations changed (room). */
  'reservations.changed': undefined;
  /** The room's focus or decisions changed (room). */
  'context.changed': { classes: ContextClass[] };
  /** Wakes were queued, started or ended (room), or an owner's runner wakes changed (owners). */
  'wakes.changed': undefined;
  /** A wake was handed to its target (room); tests and benchmarks time it, no view needs it. */
  'wake.started': { wake_id: string; plate: string; handle: string; target: 'channel' | 'runner' };
  /** A running wake's transcript grew (room): `seq` is its newest event (GET /v1/wakes/:id/transcript?after=). */
  'wake.transcript': { wake_id: string; seq: number };
  /** Task or product feedback was recorded in a room (room). */
  'feedback.changed': undefined;
  /** An error report was recorded (owners, and the room it is tied to). */
  'reports.changed': undefined;
  /** An owner's agents or credentials changed (owners). */
  'agents.changed': undefined;
  /** An owner's runners changed (owners). */
  'runners.changed': undefined;
  /** A backup of the home started or ended, by hand or on schedule (the primary owner). */
  'backup.changed': undefined;
  /** An owner's settings changed (that owner and the primary owner; `allow_runners` is for them only), or an owner joined (everyone). */
  'owners.changed': { owner_id: string; allow_runners: boolean } | undefined;
}

export type CoreEventType = keyof CoreEventData;

/** Who may see an event: a room's humans (`room`), named owners (`owners`), or everyone signed in (neither). */
interface Audience {
  room?: string;
  /** Owners who may see an event with no room (e.g. their own agents changing). */
  owners?: string[];
  /**
   * In process only (never sent): false when the change gives the wake dispatcher nothing to
   * start, e.g. a message whose wakes were all parked for pull, so it skips its pass.
   */
  dispatch?: false;
}

/** One event as the bus carries it. */
export type CoreEventOf<K extends CoreEventType> = Audience &
  (undefined extends CoreEventData[K] ? { type: K; data?: CoreEventData[K] } : { type: K; data: CoreEventData[K] });

/** A change the UI (and the wake dispatcher) may care about, emitted after the write it describes has committed. */
export type CoreEvent = { [K in CoreEventType]: CoreEventOf<K> }[CoreEventType];

/** One event as `/v1/events` sends it (the SSE event name is `type`): no audience, data `null` when there is none. */
export type WireEventOf<K extends CoreEventType> = {
  type: K;
  room?: string;
  data: undefined extends CoreEventData[K] ? Exclude<CoreEventData[K], undefined> | null : CoreEventData[K];
};
export type WireEvent = { [K in CoreEventType]: WireEventOf<K> }[CoreEventType];

/** Every event type, at run time (a test checks each has an emitter); the map above is the source. */
export const CORE_EVENT_TYPES = [
  'message.created',
  'rooms.changed',
  'members.changed',
  'instances.changed',
  'trust.changed',
  'board.changed',
  'files.changed',
  'workspace.changed',
  'reservations.changed',
  'context.changed',
  'wakes.changed',
  'wake.started',
  'wake.transcript',
  'feedback.changed',
  'reports.changed',
  'agents.changed',
  'runners.changed',
  'backup.changed',
  'owners.changed',
] as const satisfies readonly CoreEventType[];

/** Events no view refreshes on; every other event has a handler in the UI (src-renderer/src/live-events.ts). */
export const SERVER_ONLY_EVENTS = ['wake.started'] as const satisfies readonly CoreEventType[];

/** The events the UI must handle. */
export type UiEventType = Exclude<CoreEventType, (typeof SERVER_ONLY_EVENTS)[number]>;
