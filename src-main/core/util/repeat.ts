/** How a piece of background work stops: called once when the core closes. */
export type StopStep = () => void | Promise<void>;

let active = 0;

/** How many `repeat` loops run in this process (tests check that closing a core stops its own). */
export function activeRepeats(): number {
  return active;
}

/**
 * Runs `fn` every `everyMs` (and once right away, synchronously, unless `runNow` is false), never keeping the process
 * alive; a throw is logged with `name` and the loop goes on. Returns the loop's stop step.
 */
export function repeat(o: { name: string; everyMs: number; runNow?: boolean; log: (line: string) => void }, fn: () => void): StopStep {
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
  active++;
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    active--;
    clearInterval(timer);
  };
}
