import { EventEmitter } from 'node:events';

/** A change the UI (and the wake dispatcher) may care about; `room` scopes who may see it. */
export interface CoreEvent {
  type: string;
  room?: string;
  /** Owners who may see an event with no room (e.g. their own agents changing). */
  owners?: string[];
  data?: unknown;
}

/** In-process fan-out of core events, emitted after the write they describe has committed. */
export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  emit(event: CoreEvent): void {
    this.emitter.emit('event', event);
  }

  on(listener: (e: CoreEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }
}
