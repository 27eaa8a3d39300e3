import type { TaskRecord } from './store.js';

/**
 * The model input of a task wake: the task record, and for a successor wake the
 * completer's handoff notes verbatim. Nothing else is injected (docs/contract.md "Wakes").
 */
export function taskPayloadText(task: TaskRecord, handoffNotes?: string): string {
  return JSON.stringify(handoffNotes === undefined ? { task } : { task, handoff_notes: handoffNotes });
}
