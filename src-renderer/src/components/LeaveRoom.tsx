import { useState } from 'react';
import { describeError, enc, post } from '../api';
import { useRooms } from '../stores/rooms';
import { navigate } from '../router';
import type { Members, Room } from '../types';
import { Confirm } from './Dialog';

/**
 * Leave a room (docs/security.md, item 2). The last admin names another member as admin first;
 * your agents and your Trust leave with you.
 */
export function LeaveRoom({ room, members, meId }: { room: Room; members: Members; meId?: string }) {
  const [open, setOpen] = useState(false);
  const [newAdmin, setNewAdmin] = useState('');
  const [err, setErr] = useState<string>();
  const others = members.humans.filter((h) => h.owner_id !== meId);
  const lastAdmin = room.role === 'admin' && !others.some((h) => h.role === 'admin');
  const blocked = lastAdmin && others.length === 0;

  return (
    <div className="stack">
      <h2>Leave this room</h2>
      {lastAdmin && others.length > 0 && (
        <>
          <label htmlFor="leave-new-admin">You are the last admin: name the new admin</label>
          <select id="leave-new-admin" value={newAdmin} onChange={(e) => setNewAdmin(e.target.value)}>
            <option value="">Choose…</option>
            {others.map((h) => (
              <option key={h.owner_id} value={h.owner_id}>
                {h.name} {h.handle}
              </option>
            ))}
          </select>
        </>
      )}
      {blocked && <p className="muted">You are the only human here: add someone as admin before you leave.</p>}
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
            const r = await post(`/v1/rooms/${enc(room.room_id)}/leave`, lastAdmin ? { new_admin: newAdmin } : {});
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
