// Which core events need the human, as native notifications. The events' data belongs to
// the capabilities that emit them and may grow or change shape: read it defensively and
// say nothing rather than something wrong.
import type { CoreEvent } from '../../shared/core-events.js';

export interface DesktopNotification {
  title: string;
  body: string;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

function clip(s: string, max = 180): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? one.slice(0, max - 1) + '…' : one;
}

/** The records an event carries: the data itself, or under a named key, one or many. */
function records(data: unknown, key: string): Obj[] {
  const out: Obj[] = [];
  const add = (v: unknown) => {
    if (Array.isArray(v)) for (const x of v) if (isObj(x)) out.push(x);
    if (isObj(v)) out.push(v);
  };
  if (isObj(data)) {
    if (key in data || `${key}s` in data) {
      add(data[key]);
      add(data[`${key}s`]);
    } else add(data);
  } else add(data);
  return out;
}

/** An event addressed to named owners is not this owner's business unless it is named. */
function addressedElsewhere(e: CoreEvent, ownerId: string): boolean {
  return Array.isArray(e.owners) && e.owners.length > 0 && !e.owners.includes(ownerId);
}

function ownedByOther(r: Obj, ownerId: string): boolean {
  const owner = str(r.owner_id) ?? str(r.owner);
  return owner !== undefined && owner.startsWith('own_') && owner !== ownerId;
}

function failedWake(e: CoreEvent, ownerId: string): DesktopNotification | null {
  const wake = records(e.data, 'wake').find((w) => (w.status ?? w.state) === 'failed' && !ownedByOther(w, ownerId));
  if (!wake) return null;
  const who = str(wake.handle) ?? str(wake.plate) ?? 'An agent';
  const why = str(wake.reason) ?? str(wake.error) ?? (typeof wake.exit_code === 'number' ? `exit code ${wake.exit_code}` : 'no reason given');
  return { title: `Wake failed: ${who}`, body: clip(`${who} could not be woken${str(wake.trigger) ? ` (${wake.trigger})` : ''}: ${why}`) };
}

function taskNeedsHuman(e: CoreEvent, ownerId: string): DesktopNotification | null {
  const task = records(e.data, 'task').find((t) => (t.status === 'blocked' || t.status === 'failed') && !ownedByOther(t, ownerId));
  if (!task) return null;
  const title = str(task.title) ?? str(task.task_id) ?? 'A task';
  const assignee = isObj(task.assignee) ? (str(task.assignee.handle) ?? str(task.assignee.plate)) : str(task.assignee);
  const why = str(task.reason) ?? str(task.summary);
  const verb = task.status === 'blocked' ? 'is blocked' : 'failed';
  return {
    title: `Task ${verb}: ${clip(title, 80)}`,
    body: clip([assignee ? `${assignee}: ` : '', why ?? (task.status === 'blocked' ? 'It needs attention.' : 'No reason given.')].join('')),
  };
}

function mentionOfOwner(e: CoreEvent, ownerId: string): DesktopNotification | null {
  const data: unknown = e.data;
  const msg = isObj(data) && isObj(data.message) ? data.message : data;
  if (!isObj(msg) || !Array.isArray(msg.mentions)) return null;
  const mentioned = msg.mentions.some((m) => isObj(m) && m.kind !== 'agent' && m.owner_id === ownerId);
  if (!mentioned) return null;
  const sender = isObj(msg.sender) ? msg.sender : {};
  if (sender.kind === 'human' && sender.owner_id === ownerId) return null;
  const who = str(sender.handle) ?? str(sender.name) ?? 'Someone';
  return { title: `${who} mentioned you`, body: clip(str(msg.body) ?? '') || '(no text)' };
}

/** The notification an event calls for, for the owner at this desk, or null for none. */
export function notificationFor(event: unknown, ownerId: string): DesktopNotification | null {
  if (!isObj(event) || typeof event.type !== 'string') return null;
  const e = event as unknown as CoreEvent;
  if (addressedElsewhere(e, ownerId)) return null;
  switch (e.type) {
    case 'wakes.changed':
      return failedWake(e, ownerId);
    case 'board.changed':
      return taskNeedsHuman(e, ownerId);
    case 'message.created':
      return mentionOfOwner(e, ownerId);
    default:
      return null;
  }
}

/**
 * Drops repeats: a board that changes again while a task stays blocked, or the same failed
 * wake reported twice, shows one notification, not one per change.
 */
export class NotificationGate {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly windowMs = 10 * 60 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  admit(n: DesktopNotification): boolean {
    const key = `${n.title}\n${n.body}`;
    const t = this.now();
    const last = this.seen.get(key);
    if (last !== undefined && t - last < this.windowMs) return false;
    this.seen.set(key, t);
    if (this.seen.size > 500) for (const [k, at] of this.seen) if (t - at >= this.windowMs) this.seen.delete(k);
    return true;
  }
}
