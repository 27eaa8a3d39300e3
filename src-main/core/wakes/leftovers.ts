import { readdir, readFile } from 'node:fs/promises';

/**
 * What a run leaves behind (docs/hosts.md "A run never outlives its wake"). A run's process group
 * is killed when its command ends (runners.ts); a helper that left the group (a daemon that
 * called setsid, Cline's `--cline-hub-daemon`) still carries the run's environment, whose
 * `AGENT_ROOMS_WAKE` names the wake. On Linux every process of the server's user is looked at
 * (its /proc environ, read asynchronously, a few at a time) and those of this wake are killed.
 * Elsewhere the process group and the adapter's own cleanup are what stops them.
 */

/** How many /proc entries are read at once. */
const PARALLEL = 16;
/** A bound on the processes looked at (a machine has far fewer). */
const PROCESSES_MAX = 100_000;

/** The pids whose environment holds this wake's envelope (`AGENT_ROOMS_WAKE={"wake_id":"<id>",…}`). */
export async function processesOfWake(wakeId: string): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  let names: string[];
  try {
    names = (await readdir('/proc')).filter((n) => /^\d+$/.test(n)).slice(0, PROCESSES_MAX);
  } catch {
    return [];
  }
  const marker = Buffer.from(`AGENT_ROOMS_WAKE={"wake_id":${JSON.stringify(wakeId)},`);
  const found: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const pid = Number(names[next++]);
      if (pid === process.pid) continue;
      try {
        const env = await readFile(`/proc/${pid}/environ`);
        // Each entry starts the buffer or follows a NUL.
        for (let at = env.indexOf(marker); at >= 0; at = env.indexOf(marker, at + 1)) {
          if (at === 0 || env[at - 1] === 0) {
            found.push(pid);
            break;
          }
        }
      } catch {
        // gone, or another user's
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return found;
}

/** Kills every process left of this wake's run; returns how many were. */
export async function stopLeftovers(wakeId: string): Promise<number> {
  const pids = await processesOfWake(wakeId);
  let killed = 0;
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
      killed++;
    } catch {
      // already gone
    }
  }
  return killed;
}
