import { create } from 'zustand';
import type { ApiError, ApiResult } from '../api';
import { client } from '../client';
import type { Agent, CreatedAgent, Credential, MintedCredential, Runner, RunnerForm, RunnerPreset, ScopeName } from '../types';
import { HOSTS } from '../../../shared/hosts';

/** Every host a runner can be configured for: the hosts' own list (shared/hosts.ts), not a copy of it. */
export const RUNNER_HOSTS: readonly string[] = HOSTS.map((h) => h.id);
export type RunnerHost = string;

interface AgentsState {
  agents: Agent[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  error?: ApiError;
  credentials: Record<string, Credential[]>;
  runners: Record<string, Partial<Record<RunnerHost, Runner | null>>>;
  load: () => Promise<void>;
  create: (name: string, scopes: ScopeName[]) => Promise<ApiResult<CreatedAgent>>;
  loadCredentials: (plate: string) => Promise<void>;
  /** The secret goes to the caller (the one-time display) and is never kept in the store. */
  mint: (plate: string, device: string) => Promise<ApiResult<MintedCredential>>;
  revokeAgent: (plate: string) => Promise<ApiResult<unknown>>;
  revokeCredential: (plate: string, credentialId: string) => Promise<ApiResult<unknown>>;
  revokeDevice: (plate: string, deviceId: string) => Promise<ApiResult<unknown>>;
  loadRunners: (plate: string) => Promise<void>;
  presets: RunnerPreset[];
  loadPresets: () => Promise<void>;
  saveRunner: (plate: string, host: RunnerHost, runner: RunnerForm) => Promise<ApiResult<unknown>>;
  removeRunner: (plate: string, host: RunnerHost) => Promise<ApiResult<unknown>>;
}

export const useAgents = create<AgentsState>((set, getState) => ({
  agents: [],
  status: 'idle',
  credentials: {},
  runners: {},
  presets: [],
  load: async () => {
    if (getState().status !== 'ready') set({ status: 'loading' });
    const r = await client.agents.list();
    if (r.ok) set({ agents: r.data.agents, status: 'ready', error: undefined });
    else set({ status: 'error', error: r.error });
  },
  create: async (name, scopes) => {
    const r = await client.agents.create({ body: { name, scopes } });
    if (r.ok) await getState().load();
    return r;
  },
  loadCredentials: async (plate) => {
    const r = await client.agents.credentials({ params: { plate } });
    if (r.ok) set((s) => ({ credentials: { ...s.credentials, [plate]: r.data.credentials } }));
  },
  mint: async (plate, device) => {
    const r = await client.agents.mint({ params: { plate }, body: device ? { device } : {} });
    if (r.ok) void getState().loadCredentials(plate);
    return r;
  },
  revokeAgent: async (plate) => {
    const r = await client.agents.revoke({ params: { plate } });
    if (r.ok) await getState().load();
    return r;
  },
  revokeCredential: async (plate, id) => {
    const r = await client.agents.revokeCredential({ params: { id } });
    if (r.ok) await getState().loadCredentials(plate);
    return r;
  },
  revokeDevice: async (plate, id) => {
    const r = await client.agents.revokeDevice({ params: { id } });
    if (r.ok) await getState().loadCredentials(plate);
    return r;
  },
  loadRunners: async (plate) => {
    const r = await client.wakes.runners({ params: { plate } });
    if (!r.ok) return;
    const byHost = Object.fromEntries(RUNNER_HOSTS.map((h) => [h, r.data.runners.find((x) => x.host === h) ?? null]));
    set((s) => ({ runners: { ...s.runners, [plate]: byHost } }));
  },
  loadPresets: async () => {
    if (getState().presets.length) return;
    const r = await client.wakes.presets();
    if (r.ok) set({ presets: r.data.presets });
  },
  saveRunner: async (plate, host, runner) => {
    const r = await client.wakes.saveRunner({ params: { plate, host }, body: runner });
    if (r.ok) await getState().loadRunners(plate);
    return r;
  },
  removeRunner: async (plate, host) => {
    const r = await client.wakes.removeRunner({ params: { plate, host } });
    if (r.ok) await getState().loadRunners(plate);
    return r;
  },
}));
