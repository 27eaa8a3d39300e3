import { useEffect, useState } from 'react';
import { useAgents, RUNNER_HOSTS, type RunnerHost } from '../stores/agents';
import { describeError } from '../api';
import { client } from '../client';
import type { Agent } from '../types';
import type { HostKey } from './connect';

const INBOX = '__inbox__';

/**
 * "How should it wake?": the host's runner preset preselected (contracts.wakes.saveRunner
 * {preset}), or the inbox only; then a live test: a mention in the owner's private Test wakes
 * room (contracts.wakes.startTest, docs/wakes.md "Test wakes"), never in the working room, and what
 * became of it.
 */
export function WakeStep({ agent, host }: { agent: Pick<Agent, 'plate'>; host: HostKey; roomId?: string }) {
  const presets = useAgents((s) => s.presets);
  const runnerHost = (RUNNER_HOSTS as readonly string[]).includes(host) ? (host as RunnerHost) : null;
  const mine = presets.filter((p) => p.host === runnerHost);
  // '' = not chosen yet: the host's preset once the presets are known, else the inbox.
  const [picked, setChoice] = useState('');
  const choice = picked || (mine[0]?.preset ?? INBOX);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<string>();
  const [err, setErr] = useState<string>();
  useEffect(() => {
    void useAgents.getState().loadPresets();
  }, []);

  async function test() {
    setBusy(true);
    setErr(undefined);
    setOutcome('Sending a test mention…');
    if (choice !== INBOX && runnerHost) {
      const r = await useAgents.getState().saveRunner(agent.plate, runnerHost, { preset: choice });
      if (!r.ok) {
        setBusy(false);
        setOutcome(undefined);
        return setErr(describeError(r.error));
      }
    }
    // The test goes to your own private Test wakes room (Settings), never to this working room.
    const t = await client.wakes.startTest({ body: { plate: agent.plate, from: 'connect' } });
    if (!t.ok) {
      setBusy(false);
      setOutcome(undefined);
      return setErr(describeError(t.error));
    }
    const where = 'in your Test wakes room (Settings)';
    // Follow the wake of that message until it ends (or two minutes pass).
    const until = Date.now() + 120_000;
    for (;;) {
      const w = await client.wakes.roomLog({ params: { id: t.data.room_id }, query: { message_id: t.data.message_id, limit: 5 } });
      const mineWake = w.ok ? w.data.wakes.find((x) => x.plate === agent.plate) : undefined;
      if (!mineWake || t.data.wake.status === 'inbox') {
        setOutcome(
          choice === INBOX || t.data.wake.status === 'inbox'
            ? `Test mention sent ${where}: it waits in the inbox until the agent checks it (${t.data.wake.reason ?? 'nothing wakes it now'}).`
            : `Test wake queued ${where}…`,
        );
        if (choice === INBOX || t.data.wake.status === 'inbox' || Date.now() > until) break;
      } else {
        const reason = mineWake.reason ? `: ${mineWake.reason}` : '';
        setOutcome(`Test wake ${mineWake.status} ${where}${reason}`);
        if (mineWake.status !== 'queued' && mineWake.status !== 'running') break;
        if (Date.now() > until) break;
      }
      await new Promise((r) => setTimeout(r, 1500));
    }
    setBusy(false);
  }

  return (
    <div className="stack narrow wake-step">
      <label htmlFor="ob-wake">When mentioned or given a task</label>
      <select id="ob-wake" value={choice} onChange={(e) => setChoice(e.target.value)}>
        {mine.map((p) => (
          <option key={p.preset} value={p.preset}>
            Run {[p.command, ...p.args].join(' ').slice(0, 60)} (preset {p.preset})
          </option>
        ))}
        <option value={INBOX}>Wait in the inbox until the agent checks</option>
      </select>
      <button type="button" onClick={() => void test()} disabled={busy || !choice}>
        {choice === INBOX ? 'Send a test mention' : 'Save and send a test mention'}
      </button>
      {outcome && (
        <p role="status" data-testid="wake-test">
          {outcome}
        </p>
      )}
      {err && (
        <p role="alert" className="error-text">
          {err}
        </p>
      )}
    </div>
  );
}
