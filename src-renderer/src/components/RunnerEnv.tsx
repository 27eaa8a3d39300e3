import { useState } from 'react';
import type { RunnerForm } from '../types';

/**
 * What the runner editor sends of the environment: nothing when untouched (the server keeps it
 * all), else the saved names to keep (`keep_env`) and the new values (`env`). Values are typed
 * into password fields and never shown back: the server answers names only, as `agent-rooms
 * connect --env` leaves them (docs/wakes.md "Runners").
 */
export interface EnvEdit {
  keep: string[];
  set: Record<string, string>;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The env part of a runner save: `{}` when untouched. */
export function envBody(saved: string[], edit: EnvEdit | null): Pick<RunnerForm, 'env' | 'keep_env'> {
  if (!edit) return {};
  return { env: edit.set, keep_env: edit.keep.filter((k) => saved.includes(k)) };
}

/**
 * The runner's environment values: each saved name with "set" and Replace/Remove, and a row to
 * add a variable. Its API keys and base URLs are what a second owner's headless host needs, and
 * she has no shell on this machine to give them through `connect --env`.
 */
export function RunnerEnv({ id, saved, edit, onChange }: { id: string; saved: string[]; edit: EnvEdit | null; onChange: (e: EnvEdit) => void }) {
  const cur: EnvEdit = edit ?? { keep: saved, set: {} };
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [bad, setBad] = useState<string>();
  const shown = [...new Set([...cur.keep, ...Object.keys(cur.set)])].sort();

  function add() {
    const n = name.trim();
    if (!ENV_NAME.test(n) || n.startsWith('AGENT_ROOMS_')) return setBad('A name of letters, digits and _, not starting with a digit or AGENT_ROOMS_.');
    if (!value) return setBad('Type the value.');
    setBad(undefined);
    onChange({ keep: cur.keep.filter((k) => k !== n), set: { ...cur.set, [n]: value } });
    setName('');
    setValue('');
  }

  return (
    <fieldset className="runner-env" aria-describedby={`${id}-env-why`}>
      <legend>Environment values</legend>
      <p className="muted" id={`${id}-env-why`}>
        API keys and base URLs the host needs when it runs headless. A value is never shown again once saved: only its name, marked “set”.
      </p>
      {shown.length > 0 && (
        <ul className="list" aria-label="Environment variables" data-testid={`${id}-env`}>
          {shown.map((k) => (
            <li key={k} className="row">
              <code>{k}</code> <span className="badge ok">{k in cur.set ? (saved.includes(k) ? 'new value, not saved yet' : 'not saved yet') : 'set'}</span>
              <button type="button" onClick={() => onChange({ keep: cur.keep.filter((x) => x !== k), set: Object.fromEntries(Object.entries(cur.set).filter(([x]) => x !== k)) })}>
                Remove {k}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="row wrap">
        <label htmlFor={`${id}-env-name`}>Variable</label>
        <input id={`${id}-env-name`} value={name} onChange={(e) => setName(e.target.value)} placeholder="ANTHROPIC_API_KEY" autoComplete="off" spellCheck={false} />
        <label htmlFor={`${id}-env-value`}>Value</label>
        <input id={`${id}-env-value`} type="password" value={value} onChange={(e) => setValue(e.target.value)} autoComplete="new-password" />
        <button type="button" onClick={add}>
          Set variable
        </button>
      </div>
      {bad && (
        <p role="alert" className="error-text">
          {bad}
        </p>
      )}
      {edit && <p className="muted">Save the runner to keep these changes.</p>}
    </fieldset>
  );
}
