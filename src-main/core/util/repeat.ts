/** How a piece of background work stops: called once when the core closes. */
export type StopStep = () => void | Promise<void>;

/**
 * How many loops one core has running: a service of the core (`core.services.loops`,
 * docs/architecture.md "Services"), so what one core starts or stops never shows in another's
 * count (several cores can share a process: the desktop app restarting its core, test files
 * sharing a worker; docs/testing.md).
 */
export class LoopCount {
  running = 0;
}

/** What a loop belongs to: its core (util imports no core, so only the part it counts in). */
export interface LoopOwner {
  services: { loops: LoopCount };
}

/** How many `repeat` loops `owner` has running (tests check that closing a core stops all of its own). */
export function activeRepeats(owner: LoopOwner): number {
  return owner.services.loops.running;
}

/**
 * Runs `fn` every `everyMs` (and once right away, synchronously, unless `runNow` is false), never keeping the process
 * alive; a throw is logged with `name` and the loop goes on. `owner` is what the loop belongs to (its core), for
 * `activeRepeats`. Returns the loop's stop step.
 */
export function repeat(o: { name: string; owner: LoopOwner; everyMs: number; runNow?: boolean; log: (line: string) => void }, fn: () => void): StopStep {
  const run = () => {
    try {
      fn();
    } catch (err) {
      o.log(`${o.name} failed: ${(err as Error).message}`);
    }
  };
  if (o.runNow !== false) run();
  const timer = setInterval(run, o.everyMs);
  timer.unref();
  const count = o.owner.services.loops;
  count.running++;
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    count.running--;
    clearInterval(timer);
  };
}
