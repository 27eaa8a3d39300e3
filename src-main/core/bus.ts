import { EventEmitter } from 'node:events';
import type { CoreEvent } from '../../shared/core-events.js';

/** A change the UI (and the wake dispatcher) may care about; `room` scopes who may see it (shared/core-events.ts). */
export type { CoreEvent } from '../../shared/core-events.js';

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
