import { z } from 'zod';
import { endpoint } from './contract.js';
import {
  doctorBody,
  humanWake,
  listedRunner,
  runnerBody,
  runnerPreset,
  runnerRecord,
  transcriptPage,
  transcriptQuery,
  usageQuery,
  usageSummary,
  wakeabilityReport,
  wakePage,
  wakeQuery,
  wakeSettings,
  wakeSettingsBody,
  worktreeDoctorReport,
} from '../schemas/wakes.js';
import { messageDeliveries, messageDeliveriesQuery } from '../schemas/deliveries.js';
import { testWakeBody, testWakeList, testWakeQuery, testWakeStarted } from '../schemas/test-wakes.js';

/**
 * The wake endpoints (docs/wakes.md): runners per agent and host and their presets, the doctor,
 * the wake logs and the acts on a wake, a run's transcript, usage, the wake limits; and the two
 * wake endpoints of the chat (what became of each mention, test wakes).
 */
export const wakes = {
  presets: endpoint({
    method: 'GET',
    path: '/v1/runner-presets',
    summary: "Lists the runner presets: each host's command line, ready to use.",
    output: z.object({ presets: z.array(runnerPreset) }),
  }),
  runners: endpoint({
    method: 'GET',
    path: '/v1/agents/:plate/runners',
    summary: 'Lists the runners of one of your agents, one per host.',
    output: z.object({ runners: z.array(listedRunner) }),
  }),
  saveRunner: endpoint({
    method: 'PUT',
    path: '/v1/agents/:plate/runners/:host',
    summary: 'Creates or replaces the runner of one of your agents on one host: a preset or a command.',
    body: runnerBody,
    output: runnerRecord,
  }),
  runner: endpoint({
    method: 'GET',
    path: '/v1/agents/:plate/runners/:host',
    summary: 'Reads the runner of one of your agents on one host.',
    output: listedRunner,
  }),
  removeRunner: endpoint({
    method: 'DELETE',
    path: '/v1/agents/:plate/runners/:host',
    summary: 'Removes the runner of one of your agents on one host.',
    output: z.object({ deleted: z.literal(true) }),
  }),
  doctor: endpoint({
    method: 'POST',
    path: '/v1/agents/:plate/doctor',
    summary: "Says what decides whether a mention wakes the agent, checked from the server's own environment.",
    body: doctorBody,
    output: wakeabilityReport,
  }),
  worktreeDoctor: endpoint({
    method: 'GET',
    path: '/v1/doctor/worktrees',
    summary: "Checks git, the worktrees folder and its orphans, and what each preset's edit and full can do here.",
    output: worktreeDoctorReport,
  }),
  agentLog: endpoint({
    method: 'GET',
    path: '/v1/agents/:plate/wakes',
    summary: 'Lists the wakes of one of your agents, newest first.',
    query: wakeQuery,
    output: wakePage,
  }),
  roomLog: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/wakes',
    summary: "Lists the room's wakes, newest first.",
    query: wakeQuery,
    output: wakePage,
  }),
  release: endpoint({
    method: 'POST',
    path: '/v1/wakes/:id/release',
    summary: 'Releases a held wake: it is queued again.',
    output: humanWake,
  }),
  drop: endpoint({
    method: 'POST',
    path: '/v1/wakes/:id/drop',
    summary: 'Drops a held wake: it ends failed.',
    output: humanWake,
  }),
  stop: endpoint({
    method: 'POST',
    path: '/v1/wakes/:id/stop',
    summary: "Stops a running wake: it fails and its runner's processes are killed.",
    output: humanWake,
  }),
  retry: endpoint({
    method: 'POST',
    path: '/v1/wakes/:id/retry',
    summary: 'Queues the one retry of a failed wake; answers the new wake.',
    output: humanWake,
  }),
  transcript: endpoint({
    method: 'GET',
    path: '/v1/wakes/:id/transcript',
    summary: "Reads a page of a run's transcript, oldest first (the agent's owner only).",
    query: transcriptQuery,
    output: transcriptPage,
  }),
  usage: endpoint({
    method: 'GET',
    path: '/v1/usage',
    summary: 'Sums what the runs you may see cost, in all and per agent and room.',
    query: usageQuery,
    output: usageSummary,
  }),
  limits: endpoint({
    method: 'GET',
    path: '/v1/settings/wakes',
    summary: "Reads the server's wake limits.",
    auth: 'primary',
    output: wakeSettings,
  }),
  setLimits: endpoint({
    method: 'PUT',
    path: '/v1/settings/wakes',
    summary: "Changes the server's wake limits; they are in force at once.",
    auth: 'primary',
    body: wakeSettingsBody,
    output: wakeSettings,
  }),
  deliveries: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/deliveries',
    summary: 'Says what became of each agent the given messages mention, with its wake.',
    query: messageDeliveriesQuery,
    output: messageDeliveries,
  }),
  startTest: endpoint({
    method: 'POST',
    path: '/v1/test-wakes',
    summary: 'Mentions one of your agents in your private Test wakes room.',
    body: testWakeBody,
    status: 201,
    output: testWakeStarted,
  }),
  tests: endpoint({
    method: 'GET',
    path: '/v1/test-wakes',
    summary: 'Lists your recent test wakes and how each ended.',
    query: testWakeQuery,
    output: testWakeList,
  }),
};
