import { useEffect, useState, type FormEvent } from 'react';
import { describeError, type ApiError } from '../api';
import { client } from '../client';
import { onLiveEvent } from '../live-events';
import type { UsageSums, UsageSummary, WakeSettings } from '../types';

const num = (n: number) => n.toLocaleString('en');
/** "3 runs · 12,400 in · 800 out · 9,000 cached · $0.42" (no cost when no host reported one). */
export function usageLine(u: UsageSums): string {
  const parts = [`${num(u.wakes)} run${u.wakes === 1 ? '' : 's'}`, `${num(u.input_tokens)} in`, `${num(u.output_tokens)} out`];
  if (u.cache_read_tokens) parts.push(`${num(u.cache_read_tokens)} cached`);
  if (u.cost_usd) parts.push(`$${u.cost_usd.toFixed(2)}`);
  return parts.join(' · ');
}

/** Since local midnight: "today" as the reader lives it. */
function todayIso(): string {
  const d = new Date();
  d.setHours(0, 0, 0, 0);
  return d.toISOString();
}

/**
 * Today's usage of one room or one agent (the runs that reported usage, summed by the server;
 * docs/wakes.md "Usage"), with a line per agent for a room, named by handle beside its plate.
 * Follows `wakes.changed`.
 */
export function UsageToday({ room, plate, who }: { room?: string; plate?: string; who?: (plate: string) => string }) {
  const [data, setData] = useState<UsageSummary>();
  const [error, setError] = useState<ApiError>();
  useEffect(() => {
    let live = true;
    const load = () =>
      void client.wakes.usage({ query: { room: room || undefined, plate: plate || undefined, since: todayIso() } }).then((r) => {
        if (!live) return;
        if (r.ok) {
          setData(r.data);
          setError(undefined);
        } else setError(r.error);
      });
    load();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = onLiveEvent((type) => {
      if (type !== 'wakes.changed' || timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        load();
      }, 500);
    });
    return () => {
      live = false;
      off();
      if (timer) clearTimeout(timer);
    };
  }, [room, plate]);
  if (error) return <p className="muted">Usage: {describeError(error)}</p>;
  if (!data) return null;
  return (
    <section aria-label="Usage today" className="usage">
      <p>
        <strong>Today</strong>: {data.totals.wakes ? usageLine(data.totals) : 'no run reported usage yet'}
      </p>
      {room && data.by_agent.length > 0 && (
        <ul className="plain usage-by-agent" aria-label="Usage today per agent">
          {data.by_agent.map((a) => (
            <li key={a.plate}>
              {a.handle ?? who?.(a.plate) ?? a.plate}: {usageLine(a)}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The server's wake limits (primary owner): contracts.wakes.limits and setLimits (docs/wakes.md "Settings"). */
export function WakeLimits() {
  const [limits, setLimits] = useState<WakeSettings>();
  const [chain, setChain] = useState('');
  const [budget, setBudget] = useState('');
  const [msg, setMsg] = useState<string>();
  useEffect(() => {
    void client.wakes.limits().then((r) => {
      if (!r.ok) return setMsg(describeError(r.error));
      setLimits(r.data);
      setChain(String(r.data.max_chain));
      setBudget(String(r.data.wake_budget));
    });
  }, []);
  async function save(e: FormEvent) {
    e.preventDefault();
    const r = await client.wakes.setLimits({ body: { max_chain: Number(chain), wake_budget: Number(budget) } });
    if (!r.ok) return setMsg(describeError(r.error));
    setLimits(r.data);
    setMsg('Saved: in force now.');
  }
  return (
    <form className="stack" onSubmit={save} aria-labelledby="limits-h">
      <h2 id="limits-h">Wake limits</h2>
      <p className="muted">A wake beyond a limit is held until you release or drop it in Needs you.</p>
      {limits && (
        <div className="row wrap">
          <label htmlFor="limits-chain">Longest chain of agent-to-agent wakes</label>
          <input id="limits-chain" type="number" min={0} max={1000} className="short" value={chain} onChange={(e) => setChain(e.target.value)} />
          <label htmlFor="limits-budget">Wakes per agent per hour (0 = no limit)</label>
          <input id="limits-budget" type="number" min={0} max={100000} className="short" value={budget} onChange={(e) => setBudget(e.target.value)} />
          <button type="submit">Save limits</button>
        </div>
      )}
      {msg && <p role="status">{msg}</p>}
    </form>
  );
}
