import { useEffect, useState, type FormEvent } from 'react';
import { useMembers, useRooms } from '../stores/rooms';
import { phaseOf } from '../stores/room-resource';
import { useAgents } from '../stores/agents';
import { useSession } from '../stores/session';
import { describeError } from '../api';
import type { Role, Room } from '../types';
import { Loading, ErrorNote, Empty } from './States';
import { ActivityBadge, PresenceBadge } from './presence';
import { LeaveRoom } from './LeaveRoom';
import { actionOf } from './allowed';

export function MembersView({ room }: { room: Room }) {
  const roomId = room.room_id;
  // Whether this owner may add humans: the server's answer on the room record (allowed_actions).
  const mayAddHuman = actionOf(room, 'add_human');
  const m = useMembers((s) => s.rooms[roomId]);
  const owners = useRooms((s) => s.owners);
  const { addHuman, addAgent } = useRooms.getState();
  const loadMembers = useMembers((s) => s.load);
  const myAgents = useAgents((s) => s.agents);
  const me = useSession((s) => s.me);
  const [ownerId, setOwnerId] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [plate, setPlate] = useState('');
  const [err, setErr] = useState<string>();
  useEffect(() => {
    if (useAgents.getState().status === 'idle') void useAgents.getState().load();
  }, []);

  if (!m?.data) return phaseOf(m) === 'error' ? <ErrorNote error={m?.error} what="members" retry={() => void loadMembers(roomId)} /> : <Loading what="members" />;
  const data = m.data;
  const humanIds = new Set(data.humans.map((h) => h.owner_id));
  const agentPlates = new Set(data.agents.map((a) => a.plate));
  const addableOwners = owners.filter((o) => !humanIds.has(o.owner_id));
  const addableAgents = myAgents.filter((a) => !a.revoked && !agentPlates.has(a.plate));

  async function submitHuman(e: FormEvent) {
    e.preventDefault();
    if (!ownerId) return;
    const r = await addHuman(roomId, ownerId, role);
    setErr(r.ok ? undefined : describeError(r.error));
    if (r.ok) setOwnerId('');
  }
  async function submitAgent(e: FormEvent) {
    e.preventDefault();
    if (!plate) return;
    const r = await addAgent(roomId, plate);
    setErr(r.ok ? undefined : describeError(r.error));
    if (r.ok) setPlate('');
  }

  return (
    <div className="members grid2">
      <section aria-labelledby="h-humans">
        <h2 id="h-humans">Humans</h2>
        <ul className="list">
          {data.humans.map((h) => (
            <li key={h.owner_id}>
              <strong>{h.name}</strong> <span className="muted">{h.handle}</span> <span className="badge">{h.role}</span>
              {h.invited && (
                <span className="badge" title="Added by another owner: in the room once they accept (their Needs you shows the invitation)">
                  invited
                </span>
              )}
              {h.owner_id === me?.owner_id && <span className="muted"> (you)</span>}
            </li>
          ))}
        </ul>
        {mayAddHuman?.ok ? (
          <form className="row wrap" onSubmit={submitHuman}>
            <label htmlFor="add-owner">Add a human</label>
            <select id="add-owner" value={ownerId} onChange={(e) => setOwnerId(e.target.value)}>
              <option value="">Choose…</option>
              {addableOwners.map((o) => (
                <option key={o.owner_id} value={o.owner_id}>
                  {o.name} {o.handle}
                </option>
              ))}
            </select>
            <label htmlFor="add-role">Role</label>
            <select id="add-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
              <option value="member">member</option>
              <option value="admin">admin</option>
            </select>
            <button type="submit" disabled={!ownerId}>
              Add human
            </button>
          </form>
        ) : (
          <p className="muted explain">{mayAddHuman?.reason ?? 'Only a room admin may add humans to this room.'}</p>
        )}
        <p className="muted">Your Trust for this room, and every owner’s, is in the room header.</p>
        <LeaveRoom room={room} members={data} meId={me?.owner_id} />
      </section>
      <section aria-labelledby="h-agents">
        <h2 id="h-agents">Agents</h2>
        {data.agents.length === 0 ? (
          <Empty>No agents yet. Add one of yours below.</Empty>
        ) : (
          <ul className="list">
            {data.agents.map((a) => {
              const live = data.instances.filter((i) => i.plate === a.plate);
              return (
                <li key={a.plate} data-agent={a.handle}>
                  <strong>{a.name}</strong> <span className="muted">{a.handle}</span> <span className="muted">agent of {a.owner.name}</span>
                  {a.revoked && <span className="badge warn">revoked</span>}
                  <PresenceBadge instances={live} presence={a.presence} /> <ActivityBadge presence={a.presence} />
                  {live.length > 0 && (
                    <ul className="instances">
                      {live.map((i) => (
                        <li key={i.instance_id}>
                          <code>{i.handle}</code> on {i.host}
                          {i.streaming ? ', listening' : ''} —{' '}
                          {i.working_on.length ? <>working on {i.working_on.map((w) => `“${w.title}”`).join(', ')}</> : <span className="muted">idle</span>}
                        </li>
                      ))}
                    </ul>
                  )}
                </li>
              );
            })}
          </ul>
        )}
        <form className="row wrap" onSubmit={submitAgent}>
          <label htmlFor="add-agent">Add one of your agents</label>
          <select id="add-agent" value={plate} onChange={(e) => setPlate(e.target.value)}>
            <option value="">{addableAgents.length ? 'Choose…' : 'No agents to add'}</option>
            {addableAgents.map((a) => (
              <option key={a.plate} value={a.plate}>
                {a.name} {a.handle}
              </option>
            ))}
          </select>
          <button type="submit" disabled={!plate}>
            Add agent
          </button>
        </form>
        {err && (
          <p role="alert" className="error-text">
            {err}
          </p>
        )}
      </section>
    </div>
  );
}
