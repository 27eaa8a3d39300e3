import { memo, type DragEvent, type KeyboardEvent } from 'react';
import type { Members, BoardTask } from '../types';
import { dePlate } from './MessageBody';
import { ReservedPaths } from './ReservationsView';
import { useBoard } from '../stores/board';

export interface CardLinks {
  /** Titles of the tasks this one waits on (prerequisites not done). */
  waits: string[];
  /** Titles of the unfinished tasks that wait on this one. */
  holds: string[];
}

/** The agent name in a handle like `@builder(root)`: what a person calls it. */
export function shortName(handle: string | undefined): string {
  return (handle ?? '').replace(/^@/, '').replace(/\(.*$/, '').replace(/#.*$/, '') || 'agent';
}

export function Avatar({ handle }: { handle: string }) {
  const name = shortName(handle);
  let hue = 0;
  for (const c of name) hue = (hue * 31 + c.charCodeAt(0)) % 360;
  return (
    <span className="avatar" aria-hidden="true" style={{ background: `hsl(${hue} 55% 42%)` }}>
      {name.slice(0, 1).toUpperCase()}
    </span>
  );
}

/** How long a stale lease went unrenewed, from the board's `lease_stale_after_ms` (the server's limit). */
export function staleNote(ms: number | undefined): string {
  return ms ? `No lease renewal for over ${Math.round(ms / 1000)} s` : 'No recent lease renewal';
}

/**
 * A compact card: title, status, assignee, dependencies both ways, and who is working on it.
 * The card is one focusable item (roving focus across the board); its details and actions
 * are in the detail panel.
 */
export const TaskCard = memo(function TaskCard({
  task,
  members,
  plates,
  links,
  focused,
  draggable,
  onOpen,
  onKey,
  onDragStart,
}: {
  task: BoardTask;
  members?: Members;
  plates: Map<string, string>;
  links: CardLinks;
  focused: boolean;
  draggable: boolean;
  onOpen: (t: BoardTask) => void;
  onKey: (e: KeyboardEvent, t: BoardTask) => void;
  onDragStart: (e: DragEvent, t: BoardTask) => void;
}) {
  const handle = task.assignee_handle || plates.get(task.assignee) || '@agent';
  const lease = task.lease;
  const holder = lease && (lease.instance_id || lease.handle) ? (members?.agents.find((a) => a.plate === task.assignee)?.name ?? shortName(lease.handle ?? handle)) : null;
  const instance = lease?.instance_id ? members?.instances.find((i) => i.instance_id === lease.instance_id) : undefined;
  const staleAfter = useBoard((s) => s.rooms[task.room]?.data?.lease_stale_after_ms);
  return (
    <article
      className={`card status-${task.status} ${links.waits.length ? 'waiting' : ''}`}
      aria-label={`BoardTask ${task.title}`}
      data-task={task.task_id}
      tabIndex={focused ? 0 : -1}
      draggable={draggable}
      onDragStart={(e) => onDragStart(e, task)}
      onClick={() => onOpen(task)}
      onKeyDown={(e) => onKey(e, task)}
      aria-describedby="board-keys"
    >
      <header>
        <h4>{dePlate(task.title, plates)}</h4>
        <span className={`status-badge s-${task.status}`}>{task.status}</span>
      </header>
      <div className="card-meta">
        <span className="assignee" title={handle}>
          <Avatar handle={handle} />
          {shortName(handle)}
        </span>
        {links.waits.length > 0 && (
          <span className="dep waits" title={`Waits on: ${links.waits.join(', ')}`}>
            waits on {links.waits.length === 1 ? `“${links.waits[0]}”` : links.waits.length}
          </span>
        )}
        {links.holds.length > 0 && (
          <span className="dep holds" title={`Holds up: ${links.holds.join(', ')}`}>
            holds up {links.holds.length === 1 ? `“${links.holds[0]}”` : links.holds.length}
          </span>
        )}
        {holder && (
          <span className="working" title={instance ? `${instance.handle} on ${instance.host}` : undefined}>
            working: {holder}
            {lease?.stale && (
              <span className="badge warn" title={`${staleNote(staleAfter)}; the holder may have died`}>
                stale
              </span>
            )}
          </span>
        )}
        {task.consent_state === 'accepted' && (
          <span className="badge" title="Assigned by another owner’s side under Trust">
            trusted
          </span>
        )}
        {task.merged && (
          <span className="status-badge s-merged" data-testid="card-merged">
            merged
          </span>
        )}
        {task.overlaps && task.overlaps.length > 0 && (
          <span className="badge warn overlaps" data-testid="card-overlaps">
            overlaps with {task.overlaps.length === 1 ? '1 task' : `${task.overlaps.length} tasks`}
            <span className="sr-only">: {task.overlaps.map((o) => `“${o.title}” (${o.paths.join(', ')})`).join('; ')}</span>
          </span>
        )}
        <ReservedPaths roomId={task.room} taskId={task.task_id} />
      </div>
    </article>
  );
});
