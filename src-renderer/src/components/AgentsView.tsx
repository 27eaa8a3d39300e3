import { useEffect, useState, type FormEvent } from 'react';
import { RUNNER_HOSTS, useAgents, type RunnerHost } from '../stores/agents';
import { describeError, type ApiError, type ApiResult } from '../api';
import { href, navigate } from '../router';
import type { Agent, MintedCredential, RunnerForm, ScopeName } from '../types';
import { SCOPE_NAMES } from '../../../shared/scopes';
import { Loading, ErrorNote, Empty } from './States';
import { Confirm, Dialog } from './Dialog';
import { connectionInstructions, urlsFromOrigin } from './connect';
import { ActivityBadge, PresenceBadge, useInstancesByPlate } from './presence';
import { useSession } from '../stores/session';
import { OwnerRights } from './OwnerRights';
import { UsageToday } from './Usage';
import { envBody, RunnerEnv, type EnvEdit } from './RunnerEnv';
import { forOwner } from './secondOwner';

const SCOPE_HELP: Record<ScopeName, string> = {
  READ: 'read rooms, board, files listing, members, mentions',
  WRITE: 'send messages, create, claim and finish tasks',
  UPLOAD: 'share, write and delete files',
  DOWNLOAD: 'read and fetch files',
  INVOKE: 'be woken by mentions and assignments',
};

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setDone(true);
          setTimeout(() => setDone(false), 2000);
        } catch {
          setDone(false);
        }
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

/** localStorage: the host last chosen in a connect dialog or the first-run flow. */
export const LAST_HOST_KEY = 'ar.connect.host';

function Instructions({ urls, agent }: { urls: Parameters<typeof connectionInstructions>[0]; agent?: Agent }) {
  const all = connectionInstructions(urls, agent?.plate, agent?.name);
  // The dialog opens on the host chosen last time (kept per browser), not always the first.
  const [tab, setTabState] = useState(() => {
    const last = localStorage.getItem(LAST_HOST_KEY);
    return all.find((i) => i.host === last)?.host ?? all[0]!.host;
  });
  const setTab = (h: typeof tab) => {
    localStorage.setItem(LAST_HOST_KEY, h);
    setTabState(h);
  };
  const me = useSession((s) => s.me);
  const cur = forOwner(all.find((i) => i.host === tab)!, me);
  return (
    <div className="instructions">
      <div role="tablist" aria-label="Host" className="tabs small">
        {all.map((i) => (
          <button key={i.host} type="button" role="tab" aria-selected={i.host === tab} onClick={() => setTab(i.host)}>
            {i.title}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={cur.title}>
        <p>{cur.where}</p>
        <pre className="snippet" data-testid={`snippet-${cur.host}`} tabIndex={0}>
          {cur.text}
        </pre>
        <CopyButton text={cur.text} label={`Copy ${cur.title} setup`} />
      </div>
    </div>
  );
}

function MintedDialog({ minted, agent, onClose }: { minted: MintedCredential; agent?: Agent; onClose: () => void }) {
  return (
    <Dialog title="New credential" onClose={onClose} wide>
      <p className="note" role="note">
        This is the only time the credential is shown. Copy it now; the server keeps only a hash of it.
      </p>
      <div className="row">
        <code className="secret" data-testid="minted-credential">
          {minted.credential}
        </code>
        <CopyButton text={minted.credential} label="Copy credential" />
      </div>
      <h3>Connect a host</h3>
      <Instructions urls={minted.mcp_urls} agent={agent} />
      <div className="row end">
        <button type="button" className="primary" onClick={onClose}>
          I have copied it
        </button>
      </div>
    </Dialog>
  );
}

/** What a run may do (the runner's `work`; '' is the server's default), in the words the editor shows. */
type WorkChoice = '' | 'room' | 'edit' | 'full';
const WORK_CHOICES: Array<{ value: WorkChoice; label: string; help: string }> = [
  { value: '', label: 'Default', help: 'Read and edit files when the run works on a task that has its own worktree; room tools only otherwise.' },
  { value: 'room', label: 'Room tools only', help: 'The agent can talk, claim and report, but not edit files.' },
  { value: 'edit', label: 'Read and edit files', help: 'Also read and edit files, only inside the task’s worktree; no shell commands.' },
  { value: 'full', label: 'Also run commands', help: 'Also run shell commands, inside the host’s own sandbox (refused where the host has none on this machine).' },
];

function RunnerRow({ agent, host }: { agent: Agent; host: RunnerHost }) {
  const runner = useAgents((s) => s.runners[agent.plate]?.[host]);
  const allPresets = useAgents((s) => s.presets);
  const presets = allPresets.filter((p) => p.host === host);
  const { saveRunner, removeRunner } = useAgents.getState();
  const [mode, setMode] = useState<'preset' | 'command'>(runner && !runner.preset ? 'command' : 'preset');
  const [preset, setPreset] = useState(runner?.preset ?? presets[0]?.preset ?? '');
  const [command, setCommand] = useState(runner?.command ?? '');
  const [args, setArgs] = useState((runner?.args ?? []).join(' '));
  const [cwd, setCwd] = useState(runner?.cwd ?? '');
  const [timeout, setTimeoutS] = useState(runner?.timeout_ms ? String(runner.timeout_ms / 1000) : '');
  const [coalesce, setCoalesce] = useState(runner?.coalesce === true);
  const [work, setWork] = useState<WorkChoice>(runner?.work ?? '');
  const [msg, setMsg] = useState<string>();
  const [refused, setRefused] = useState<ApiError>();
  // GET gives the env's names only (its values may be secrets); a save without env keeps them.
  const envNames = Object.keys(runner?.env ?? {});
  const [envEdit, setEnvEdit] = useState<EnvEdit | null>(null);
  const id = `rn-${agent.plate}-${host}`;
  async function submit(e: FormEvent) {
    e.preventDefault();
    const common = { ...(cwd.trim() ? { cwd: cwd.trim() } : {}), ...(timeout ? { timeout_ms: Math.round(Number(timeout) * 1000) } : {}), coalesce, work: work || null };
    const form: RunnerForm = mode === 'preset' ? { preset: preset || (presets[0]?.preset ?? ''), ...common } : { command: command.trim(), args: args.trim() ? args.trim().split(/\s+/) : [], ...common };
    const body: RunnerForm = { ...form, ...envBody(envNames, envEdit) };
    setMsg(undefined);
    setRefused(undefined);
    const r = await saveRunner(agent.plate, host, body);
    if (r.ok) setEnvEdit(null);
    if (r.ok) setMsg('Saved.');
    else setRefused(r.error);
  }
  return (
    <form className="runner" onSubmit={submit} aria-labelledby={`${id}-h`}>
      <h4 id={`${id}-h`}>
        {host} {runner ? <span className="badge ok">configured: {runner.preset ?? [runner.command, ...(runner.args ?? [])].join(' ')}</span> : <span className="badge">none</span>}
        {runner?.enabled === false && <span className="badge warn">disabled: runners not allowed for you</span>}
      </h4>
      <div className="row wrap">
        <label htmlFor={`${id}-mode`}>Kind</label>
        <select id={`${id}-mode`} value={mode} onChange={(e) => setMode(e.target.value as 'preset' | 'command')}>
          <option value="preset">Preset</option>
          <option value="command">Custom command</option>
        </select>
        {mode === 'preset' ? (
          <>
            <label htmlFor={`${id}-preset`}>Preset</label>
            <select id={`${id}-preset`} value={preset} onChange={(e) => setPreset(e.target.value)}>
              {presets.map((p) => (
                <option key={p.preset} value={p.preset}>
                  {p.preset}
                </option>
              ))}
            </select>
          </>
        ) : (
          <>
            <label htmlFor={`${id}-cmd`}>Command</label>
            <input id={`${id}-cmd`} value={command} onChange={(e) => setCommand(e.target.value)} placeholder="/usr/local/bin/my-agent" />
            <label htmlFor={`${id}-args`}>Arguments</label>
            <input id={`${id}-args`} value={args} onChange={(e) => setArgs(e.target.value)} placeholder="-p" />
          </>
        )}
        <label htmlFor={`${id}-cwd`}>Working dir</label>
        <input id={`${id}-cwd`} value={cwd} onChange={(e) => setCwd(e.target.value)} placeholder="/abs/path (optional)" />
        <label htmlFor={`${id}-to`}>Timeout (s)</label>
        <input id={`${id}-to`} type="number" min={1} value={timeout} onChange={(e) => setTimeoutS(e.target.value)} className="short" placeholder="600" />
        <label className="row" htmlFor={`${id}-co`}>
          <input id={`${id}-co`} type="checkbox" checked={coalesce} onChange={(e) => setCoalesce(e.target.checked)} aria-describedby={`${id}-co-why`} /> Coalesce mentions
        </label>
        <fieldset className="work-choice" aria-describedby={runner ? `${id}-work-now` : undefined}>
          <legend>Work: what a run may do</legend>
          {WORK_CHOICES.map((c) => (
            <label key={c.value || 'default'} className="check">
              <input type="radio" name={`${id}-work`} value={c.value} checked={work === c.value} onChange={() => setWork(c.value)} /> {c.label}{' '}
              <span className="muted">— {c.help}</span>
            </label>
          ))}
          {runner && (
            <p className="muted" id={`${id}-work-now`}>
              Saved now: {WORK_CHOICES.find((c) => c.value === (runner.work ?? ''))?.label ?? runner.work}.
            </p>
          )}
        </fieldset>
        <button type="submit">Save runner</button>
        {runner && (
          <button
            type="button"
            className="danger"
            onClick={async () => {
              setRefused(undefined);
              setMsg((await removeRunner(agent.plate, host)).ok ? 'Removed.' : 'Could not remove.');
            }}
          >
            Remove
          </button>
        )}
      </div>
      <p className="muted" id={`${id}-co-why`}>
        Coalesce: mentions of this agent in one room that queue while it runs start as one run with all their messages, so three quick
        mentions cost one start and one read of the room instead of three.
      </p>
      <RunnerEnv id={id} saved={envNames} edit={envEdit} onChange={setEnvEdit} />
      {msg && <p role="status">{msg}</p>}
      {refused && (
        <p role="alert" className="error-text">
          Not saved: {refused.message}{' '}
          <span className="muted" title={refused.code}>
            {refused.error_id ? `(ref ${refused.error_id})` : ''}
          </span>
        </p>
      )}
    </form>
  );
}

function AgentDetail({ agent }: { agent: Agent }) {
  const me = useSession((s) => s.me);
  const creds = useAgents((s) => s.credentials[agent.plate]);
  const runnersLoaded = useAgents((s) => !!s.runners[agent.plate]);
  const { loadCredentials, mint, revokeAgent, revokeCredential, revokeDevice, loadRunners, loadPresets } = useAgents.getState();
  const [device, setDevice] = useState('');
  const [minted, setMinted] = useState<MintedCredential | null>(null);
  const [confirm, setConfirm] = useState<null | { title: string; text: string; action: string; run: () => Promise<ApiResult<unknown>> }>(null);
  const [err, setErr] = useState<string>();
  useEffect(() => {
    void loadCredentials(agent.plate);
    void loadRunners(agent.plate);
    void loadPresets();
  }, [agent.plate, loadCredentials, loadRunners, loadPresets]);

  return (
    <section className="agent-detail" aria-labelledby="ag-h">
      <h2 id="ag-h">
        {agent.name} <span className="muted">{agent.handle}</span> {agent.revoked && <span className="badge warn">revoked</span>}
      </h2>
      <p>
        Plate <code>{agent.plate}</code> · scopes {agent.scopes.join(', ') || 'none'}
      </p>
      {err && <ErrorNote error={err} />}
      <h3>Credentials</h3>
      {!creds ? (
        <Loading what="credentials" />
      ) : creds.length === 0 ? (
        <Empty>No credentials yet: mint one to connect a host.</Empty>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Created</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {creds.map((c) => (
              <tr key={c.credential_id}>
                <td>{c.device}</td>
                <td>{new Date(c.created_at).toLocaleString()}</td>
                <td>{c.revoked ? <span className="badge warn">revoked</span> : <span className="badge ok">active</span>}</td>
                <td className="row">
                  {!c.revoked && (
                    <>
                      <button
                        type="button"
                        onClick={() => setConfirm({ title: 'Revoke credential?', text: `Clients using this credential (${c.device}) stop working on their next call.`, action: 'Revoke credential', run: () => revokeCredential(agent.plate, c.credential_id) })}
                      >
                        Revoke credential
                      </button>
                      <button
                        type="button"
                        onClick={() => setConfirm({ title: 'Revoke device?', text: `Every credential of the device “${c.device}” stops working on its next call.`, action: 'Revoke device', run: () => revokeDevice(agent.plate, c.device_id) })}
                      >
                        Revoke device
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {!agent.revoked && (
        <form
          className="row wrap"
          onSubmit={async (e) => {
            e.preventDefault();
            const r = await mint(agent.plate, device.trim());
            if (r.ok) {
              setMinted(r.data);
              setDevice('');
              setErr(undefined);
            } else setErr(describeError(r.error));
          }}
        >
          <label htmlFor="mint-device">Device name</label>
          <input id="mint-device" value={device} onChange={(e) => setDevice(e.target.value)} placeholder="laptop" maxLength={80} />
          <button type="submit" className="primary">
            Mint credential
          </button>
        </form>
      )}
      <h3>Connect a host</h3>
      <p className="muted"><code>agent-rooms connect</code> writes these for you, with the credential kept in a private file or variable; they never show it on a command line.</p>
      <Instructions urls={urlsFromOrigin(window.location.origin)} agent={agent} />
      <h3>Runners</h3>
      <UsageToday plate={agent.plate} />
      <p className="muted">A runner lets the server start this agent headless when it is woken and no live Claude Code session listens. The wake arrives on stdin.</p>
      {me && !me.allow_runners && (
        <p className="note">Runners run commands as this machine’s user, so only the primary owner, or an owner it allowed, may configure them. The primary owner allows it under “People on this server”; this page changes as soon as they do.</p>
      )}
      {runnersLoaded ? RUNNER_HOSTS.map((h) => <RunnerRow key={h} agent={agent} host={h} />) : <Loading what="runners" />}
      {!agent.revoked && (
        <>
          <h3>Danger zone</h3>
          <button type="button" className="danger" onClick={() => setConfirm({ title: 'Revoke agent?', text: `${agent.name} loses access everywhere at once; its live sessions end.`, action: 'Revoke agent', run: () => revokeAgent(agent.plate) })}>
            Revoke agent
          </button>
        </>
      )}
      {minted && <MintedDialog minted={minted} agent={agent} onClose={() => setMinted(null)} />}
      {confirm && (
        <Confirm
          title={confirm.title}
          text={confirm.text}
          action={confirm.action}
          onConfirm={async () => {
            const r = await confirm.run();
            if (!r.ok) setErr(describeError(r.error));
          }}
          onClose={() => setConfirm(null)}
        />
      )}
    </section>
  );
}

export function AgentsView({ plate }: { plate?: string }) {
  const { agents, status, error, load, create } = useAgents();
  const me = useSession((s) => s.me);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ScopeName[]>([...SCOPE_NAMES]);
  const [err, setErr] = useState<string>();
  useEffect(() => {
    void load();
  }, [load]);
  const selected = agents.find((a) => a.plate === plate);
  const instances = useInstancesByPlate();

  return (
    <div className="agents grid-side">
      <section aria-labelledby="agents-h">
        <h1 id="agents-h">Your agents</h1>
        <p>
          <a href={href('welcome')}>Connect a new agent step by step</a>
        </p>
        {status === 'loading' && <Loading what="agents" />}
        {status === 'error' && <ErrorNote error={error} what="agents" retry={() => void load()} />}
        {status === 'ready' && agents.length === 0 && <Empty>No agents yet. Create one below.</Empty>}
        <ul className="list">
          {agents.map((a) => (
            <li key={a.plate}>
              <a href={href('agents', a.plate)} aria-current={a.plate === plate ? 'page' : undefined}>
                {a.name}
              </a>{' '}
              <span className="muted">{a.handle}</span> {a.revoked ? <span className="badge warn">revoked</span> : <>
                  <PresenceBadge instances={instances.get(a.plate) ?? []} presence={a.presence} /> <ActivityBadge presence={a.presence} />
                </>}
            </li>
          ))}
        </ul>
        <form
          className="stack"
          onSubmit={async (e) => {
            e.preventDefault();
            if (!name.trim()) return;
            const r = await create(name.trim(), scopes);
            if (r.ok) {
              setName('');
              setErr(undefined);
              navigate('agents', r.data.plate);
            } else setErr(describeError(r.error));
          }}
        >
          <h2>New agent</h2>
          <label htmlFor="agent-name">Name</label>
          <input id="agent-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={80} placeholder="Reviewer" />
          <fieldset>
            <legend>Scopes</legend>
            {SCOPE_NAMES.map((s) => (
              <label key={s} className="check">
                <input type="checkbox" checked={scopes.includes(s)} onChange={(e) => setScopes(e.target.checked ? [...scopes, s] : scopes.filter((x) => x !== s))} /> {s}{' '}
                <span className="muted">— {SCOPE_HELP[s]}</span>
              </label>
            ))}
          </fieldset>
          <button type="submit" className="primary" disabled={!name.trim()}>
            Create agent
          </button>
          {err && (
            <p role="alert" className="error-text">
              {err}
            </p>
          )}
        </form>
      </section>
      {selected ? <AgentDetail key={selected.plate} agent={selected} /> : <section className="muted pad">{agents.length ? 'Pick an agent to see its credentials, connection setup and runners.' : ''}</section>}
      {me?.is_primary && <OwnerRights />}
    </div>
  );
}
