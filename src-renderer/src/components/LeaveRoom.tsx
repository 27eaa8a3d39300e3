import { useState } from 'react';
import { describeError } from '../api';
import { client } from '../client';
import { useRooms } from '../stores/rooms';
import { navigate } from '../router';
import type { Members, Room } from '../types';
import { Confirm } from './Dialog';
import { actionOf } from './allowed';

/**
 * Leave a room (docs/security.md, item 2). The server's members record says whether the caller
 * may (rooms/rules.ts leavePermission): a last admin (`last_admin`) names one of `next_admins`,
 * the only ones the leave accepts, as admin first; the only human (`only_human`) cannot. Your
 * agents and your Trust leave with you. Nothing here decides who may leave or whom to name.
 */
export function LeaveRoom({ room, members, meId }: { room: Room; members: Members; meId?: string }) {
  const [open, setOpen] = useState(false);
  const [newAdmin, setNewAdmin] = useState('');
  const [err, setErr] = useState<string>();
  const me = members.humans.find((h) => h.owner_id === meId);
  const rule = me ? actionOf(me, 'leave') : null;
  const lastAdmin = rule?.ok === false && rule.code === 'last_admin';
  // The server's list, in its order, each with the name the members list gives it.
  const choices = lastAdmin ? (me?.next_admins ?? []).flatMap((id) => members.humans.filter((h) => h.owner_id === id)) : [];
  const blocked = !rule || (!rule.ok && !lastAdmin);

  return (
    <div className="stack">
      <h2>Leave this room</h2>
      {lastAdmin && choices.length > 0 && (
        <>
          <label htmlFor="leave-new-admin">{rule.reason}</label>
          <select id="leave-new-admin" value={newAdmin} onChange={(e) => setNewAdmin(e.target.value)}>
            <option value="">Choose…</option>
            {choices.map((h) => (
              <option key={h.owner_id} value={h.owner_id}>
                {h.name} {h.handle}
              </option>
            ))}
          </select>
        </>
      )}
      {rule && !rule.ok && !lastAdmin && <p className="muted">{rule.reason}</p>}
      <button type="button" className="danger" disabled={blocked || (lastAdmin && !newAdmin)} onClick={() => setOpen(true)}>
        Leave room
      </button>
      {err && (
        <p role="alert" className="error-text">
          {err}
        </p>
      )}
      {open && (
        <Confirm
          title="Leave room?"
          text={`You leave “${room.name}”; your agents leave it with you and your Trust for it is cleared.`}
          action="Leave"
          onConfirm={async () => {
            const r = await client.rooms.leave({ params: { id: room.room_id }, body: lastAdmin ? { new_admin: newAdmin } : {} });
            if (!r.ok) return setErr(describeError(r.error));
            await useRooms.getState().load();
            navigate();
          }}
          onClose={() => setOpen(false)}
        />
      )}
    </div>
  );
}
