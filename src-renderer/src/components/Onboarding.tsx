import { useEffect, useState, type FormEvent } from 'react';
import { useAgents } from '../stores/agents';
import { useMembers, useRooms } from '../stores/rooms';
import { describeError } from '../api';
import { href } from '../router';
import { SCOPE_NAMES } from '../../../shared/scopes';
import type { CreatedAgent } from '../types';
import { HOSTS as HOST_LIST } from '../../../shared/hosts';
import { connectionInstructions, urlsFromOrigin, type HostKey } from './connect';
import { CopyButton, LAST_HOST_KEY } from './AgentsView';
import { WakeStep } from './WakeStep';
import { forOwner } from './secondOwner';
import { useSession } from '../stores/session';
import { PresenceBadge } from './presence';

/** Every host (shared/hosts.ts), then any other MCP client. */
const HOSTS: Array<[HostKey, string]> = [...HOST_LIST.map((h): [HostKey, string] => [h.id, h.title]), ['generic', 'Another MCP client']];

/**
 * The first-run flow, one page: create an agent and pick its host, copy the exact connect
 * command, add the agent to a room, and watch it come live there.
 */
export function Onboarding({ firstRun }: { firstRun?: boolean }) {
  const rooms = useRooms((s) => s.rooms);
  const [name, setName] = useState('');
  // The host chosen last time (here or in a connect dialog), not always Claude Code.
  const [host, setHostState] = useState<HostKey>(() => (HOSTS.find(([k]) => k === localStorage.getItem(LAST_HOST_KEY))?.[0] ?? HOSTS[0]![0]));
  const setHost = (h: HostKey) => {
    localStorage.setItem(LAST_HOST_KEY, h);
    setHostState(h);
  };
  const [agent, setAgent] = useState<CreatedAgent | null>(null);
  const [roomChoice, setRoomChoice] = useState('');
  const [newRoom, setNewRoom] = useState('');
  const [roomId, setRoomId] = useState<string | null>(null);
  const [err, setErr] = useState<string>();
  const [busy, setBusy] = useState(false);
  const members = useMembers((s) => (roomId ? s.rooms[roomId]?.data : undefined));
  const instances = agent ? (members?.instances ?? []).filter((i) => i.plate === agent.plate) : [];
  const live = instances.length > 0;

  useEffect(() => {
    if (!roomId) return;
    void useMembers.getState().load(roomId);
    // Live events refresh the members when an instance connects; a poll backs them up.
    const t = setInterval(() => void useMembers.getState().load(roomId), 5_000);
    return () => clearInterval(t);
  }, [roomId]);

  async function createAgent(e: FormEvent) {
    e.preventDefault();
    if (!name.trim()) return;
    setBusy(true);
    const a = await useAgents.getState().create(name.trim(), [...SCOPE_NAMES]);
    setBusy(false);
    if (!a.ok) return setErr(describeError(a.error));
    // No credential is minted here: `agent-rooms connect` mints its own and keeps it in the host's
    // own owner-only file, so no secret is ever on this page (docs/hosts.md).
    setErr(undefined);
    setAgent(a.data);
  }

  async function addToRoom(e: FormEvent) {
    e.preventDefault();
    if (!agent) return;
    setBusy(true);
    let target = roomChoice;
    if (!target || target === '__new__') {
      const r = await useRooms.getState().create(newRoom.trim() || `${agent.name}'s room`);
      if (!r.ok) {
        setBusy(false);
        return setErr(describeError(r.error));
      }
      target = r.data.room_id;
    }
    const j = await useRooms.getState().addAgent(target, agent.plate);
    setBusy(false);
    if (!j.ok) return setErr(describeError(j.error));
    setErr(undefined);
    setRoomId(target);
  }

  const me = useSession((s) => s.me);
  const found = agent ? connectionInstructions(urlsFromOrigin(window.location.origin), agent.plate, agent.name).find((i) => i.host === host)! : null;
  const instruction = found && forOwner(found, me);
  const roomName = rooms.find((r) => r.room_id === roomId)?.name;

  return (
    <section className="onboarding" aria-labelledby="ob-h">
      <h1 id="ob-h">{firstRun ? 'Welcome! Connect your first agent' : 'Connect an agent'}</h1>
      <p className="muted">Five steps: name it, connect its host, put it in a room, choose how it wakes, see it live.</p>
      <ol className="steps">
        <li className={agent ? 'done' : 'current'} aria-current={!agent ? 'step' : undefined}>
          <h2>1. Create the agent</h2>
          {agent ? (
            <p>
              <strong>{agent.name}</strong> <span className="muted">{agent.handle}</span>, for {HOSTS.find(([k]) => k === host)![1]}.
            </p>
          ) : (
            <form className="stack narrow" onSubmit={createAgent}>
              <label htmlFor="ob-name">Agent name</label>
              <input id="ob-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={80} placeholder="Reviewer" autoFocus />
              <label htmlFor="ob-host">Where it runs</label>
              <select id="ob-host" value={host} onChange={(e) => setHost(e.target.value as HostKey)}>
                {HOSTS.map(([k, label]) => (
                  <option key={k} value={k}>
                    {label}
                  </option>
                ))}
              </select>
              <button type="submit" className="primary" disabled={busy || !name.trim()}>
                Create agent
              </button>
            </form>
          )}
        </li>
        <li className={!agent ? 'todo' : roomId ? 'done' : 'current'} aria-current={agent && !roomId ? 'step' : undefined}>
          <h2>2. Connect {HOSTS.find(([k]) => k === host)![1]}</h2>
          {instruction && (
            <>
              <p>{instruction.where}</p>
              <pre className="snippet" data-testid="connect-command" tabIndex={0}>
                {instruction.text}
              </pre>
              <CopyButton text={instruction.text} label="Copy the command" />
            </>
          )}
        </li>
        <li className={!agent ? 'todo' : roomId ? 'done' : 'current'}>
          <h2>3. Add it to a room</h2>
          {agent && !roomId && (
            <form className="stack narrow" onSubmit={addToRoom}>
              <label htmlFor="ob-room">Room</label>
              <select id="ob-room" value={roomChoice} onChange={(e) => setRoomChoice(e.target.value)}>
                <option value="__new__">A new room</option>
                {rooms.map((r) => (
                  <option key={r.room_id} value={r.room_id}>
                    {r.name}
                  </option>
                ))}
              </select>
              {(!roomChoice || roomChoice === '__new__') && (
                <>
                  <label htmlFor="ob-room-name">New room name</label>
                  <input id="ob-room-name" value={newRoom} onChange={(e) => setNewRoom(e.target.value)} maxLength={100} placeholder={`${agent.name}'s room`} />
                </>
              )}
              <button type="submit" className="primary" disabled={busy}>
                Add to room
              </button>
            </form>
          )}
          {roomId && (
            <p>
              In <a href={href('rooms', roomId, 'chat')}>{roomName ?? 'the room'}</a>.
            </p>
          )}
        </li>
        <li className={!roomId ? 'todo' : 'current'}>
          <h2>4. How should it wake?</h2>
          {roomId && agent && <WakeStep agent={agent} host={host} roomId={roomId} />}
        </li>
        <li className={!roomId ? 'todo' : live ? 'done' : 'current'}>
          <h2>5. See it live</h2>
          {roomId && agent && (
            <p role="status" data-testid="onboarding-live">
              <PresenceBadge instances={instances} />{' '}
              {live ? (
                <>
                  {agent.handle} is live in {roomName ?? 'the room'}. <a href={href('rooms', roomId, 'chat')}>Open the room</a> and @mention it.
                </>
              ) : (
                <>Waiting for {agent.handle} to connect: run the command from step 2, then start a session in that host.</>
              )}
            </p>
          )}
        </li>
      </ol>
      {err && (
        <p role="alert" className="error-text">
          {err}
        </p>
      )}
    </section>
  );
}
