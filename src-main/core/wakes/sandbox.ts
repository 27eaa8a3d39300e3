import type { z } from 'zod';
import type { worktreeDoctorReport } from '../../../shared/schemas/wakes.js';
import { onPath } from '../util/which.js';
import { RUNNER_PRESETS, type PresetDef, type PresetName, type SandboxNeed, type WorkPolicy } from './presets.js';

/**
 * Whether a preset's work policy can run confined on this machine (docs/worktrees.md "Work
 * policies"): `full` runs shell commands only inside the host's own sandbox, and where that
 * sandbox cannot run here the policy is refused rather than run unconfined. Checked when a
 * runner is saved, when a run starts, and by `agent-rooms doctor`.
 */

function needMet(need: SandboxNeed, env: NodeJS.ProcessEnv): string | undefined {
  if (!need.platforms.includes(process.platform)) return `the host's sandbox does not run on ${process.platform}`;
  if (!need.commands.length) return undefined;
  const found = need.commands.filter((c) => onPath(c, env));
  if (need.anyOf ? found.length > 0 : found.length === need.commands.length) return undefined;
  const missing = need.commands.filter((c) => !found.includes(c));
  return need.anyOf
    ? `the host's sandbox needs one of ${need.commands.join(', ')} on the server's PATH, and none is there`
    : `the host's sandbox needs ${missing.join(' and ')} on the server's PATH`;
}

/** Why this policy cannot run confined for the preset here, or undefined when it can. */
export function workRefusal(p: PresetDef, policy: WorkPolicy, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (policy === 'room') return undefined;
  if (!p.work) return `a ${p.host} run can only use the room's tools here: how it edits files and runs commands has not been checked`;
  if (policy === 'full' && !p.work.full) {
    return `a ${p.host} run cannot run commands here: its sandbox cannot be checked, and commands never run outside one (reading and editing files works)`;
  }
  const need = policy === 'full' ? p.work.fullSandbox : p.work.editSandbox;
  const problem = need ? needMet(need, env) : undefined;
  return problem ? `${policy === 'full' ? 'running commands' : 'editing files'} is refused rather than done without the host's sandbox: ${problem}` : undefined;
}

/** One preset's edit or full as this machine can run it: a `work` line of GET /v1/doctor/worktrees. */
export type SandboxReport = z.output<typeof worktreeDoctorReport>['work'][number];

/** Every preset's edit and full, as this machine can run them (doctor prints it). */
export function sandboxReport(env: NodeJS.ProcessEnv = process.env): SandboxReport[] {
  const out: SandboxReport[] = [];
  for (const [name, p] of Object.entries(RUNNER_PRESETS) as Array<[PresetName, PresetDef]>) {
    for (const policy of ['edit', 'full'] as const) {
      const problem = workRefusal(p, policy, env) ?? null;
      out.push({ preset: name, host: p.host, policy, ok: problem === null, problem });
    }
  }
  return out;
}
