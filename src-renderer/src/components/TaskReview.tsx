import { useEffect, useRef, useState } from 'react';
import { describeError, enc } from '../api';
import { NO_PENDING, reviewsKey, useReviews, type ReviewVerdict } from '../stores/reviews';
import { useRooms } from '../stores/rooms';
import { useSession } from '../stores/session';
import type { Members } from '../types';
import { ownerName } from './TaskMerge';
import { formatTime } from './time';

/**
 * Reviews on the task page (docs/review.md "Reviews"): the line comments collected from the diff
 * with a body and the three verdicts, and the reviews sent before.
 */

const VERDICT_WORDS: Record<ReviewVerdict, string> = { comment: 'Commented', request_changes: 'Requested changes', approve: 'Approved' };
const ACTIONS: Array<[ReviewVerdict, string]> = [
  ['comment', 'Comment'],
  ['request_changes', 'Request changes'],
  ['approve', 'Approve'],
];

const taskHref = (roomId: string, taskId: string) => `#/rooms/${enc(roomId)}/tasks/${enc(taskId)}`;

/** The pending comments' editors; `focusId` is the one just added (its text area takes the focus). */
export function ReviewPanel({ roomId, taskId, focusId, onFocused }: { roomId: string; taskId: string; focusId?: string; onFocused: () => void }) {
  const key = reviewsKey(roomId, taskId);
  const pending = useReviews((s) => s.pending[key] ?? NO_PENDING);
  const { editPending, removePending, submit } = useReviews.getState();
  const [body, setBody] = useState('');
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string>();
  const sent = useReviews((s) => s.sent[key]);
  const boxes = useRef(new Map<string, HTMLTextAreaElement>());
  useEffect(() => {
    if (!focusId) return;
    const el = boxes.current.get(focusId);
    if (el) {
      el.focus();
      el.scrollIntoView?.({ block: 'nearest' });
      onFocused();
    }
  }, [focusId, pending, onFocused]);

  async function send(verdict: ReviewVerdict) {
    if (pending.some((c) => !c.body.trim())) return setErr('Write each line comment, or remove it.');
    if (verdict !== 'approve' && !body.trim() && !pending.length) return setErr('Write what you ask for, or comment on a line of the diff.');
    setBusy(true);
    setErr(undefined);
    const r = await submit(roomId, taskId, verdict, body);
    setBusy(false);
    if (r.ok) setBody('');
    else setErr(describeError(r.error));
  }

  return (
    <section className="review-panel" aria-labelledby={`rv-h-${taskId}`} data-testid="review-panel">
      <h4 id={`rv-h-${taskId}`}>Review</h4>
      {pending.length === 0 ? (
        <p className="muted">Comment on a line of the diff with the + button beside it (or Tab to it and press Enter).</p>
      ) : (
        <ol className="plain pending-comments" aria-label="Pending comments">
          {pending.map((c) => {
            const id = `rv-c-${c.id}`;
            return (
              <li key={c.id} className="pending-comment">
                <code>
                  {c.path}:{c.line}
                </code>
                <pre className="quoted">{c.quoted}</pre>
                <div className="row">
                  <textarea
                    id={id}
                    rows={2}
                    aria-label={`Comment on ${c.path} line ${c.line}`}
                    value={c.body}
                    ref={(el) => {
                      if (el) boxes.current.set(c.id, el);
                      else boxes.current.delete(c.id);
                    }}
                    onChange={(e) => editPending(roomId, taskId, c.id, e.target.value)}
                  />
                  <button type="button" onClick={() => removePending(roomId, taskId, c.id)} aria-label={`Remove the comment on ${c.path} line ${c.line}`}>
                    Remove
                  </button>
                </div>
              </li>
            );
          })}
        </ol>
      )}
      <label htmlFor={`rv-body-${taskId}`}>Review comment</label>
      <textarea id={`rv-body-${taskId}`} rows={3} value={body} onChange={(e) => setBody(e.target.value)} />
      {err && (
        <p role="alert" className="error-text">
          {err}
        </p>
      )}
      <div className="row wrap">
        {ACTIONS.map(([verdict, label]) => (
          <button key={verdict} type="button" className={verdict === 'approve' ? 'primary' : undefined} disabled={busy} onClick={() => void send(verdict)}>
            {label}
          </button>
        ))}
      </div>
      {sent && (
        <p role="status" className="ok-text" data-testid="review-sent">
          Review sent: the agent was asked in the room.
          {sent.follow_up_task_id && (
            <>
              {' '}
              <a href={taskHref(roomId, sent.follow_up_task_id)}>Open the follow-up task</a>
            </>
          )}
        </p>
      )}
    </section>
  );
}

/** The reviews sent before, oldest first: verdict, who, when, and the comments with their quoted lines. */
export function ReviewList({ roomId, taskId, members }: { roomId: string; taskId: string; members?: Members }) {
  const entry = useReviews((s) => s.byTask[reviewsKey(roomId, taskId)]);
  const meId = useSession((s) => s.me?.owner_id);
  const directory = useRooms((s) => s.owners);
  useEffect(() => void useReviews.getState().load(roomId, taskId), [roomId, taskId]);
  const reviews = entry?.reviews;
  if (entry?.error && !reviews) return <p className="error-text">Could not read the reviews: {describeError(entry.error)}</p>;
  if (!reviews?.length) return null;
  return (
    <section className="reviews" aria-labelledby={`rvs-h-${taskId}`} data-testid="reviews">
      <h4 id={`rvs-h-${taskId}`}>Reviews</h4>
      <ol className="plain">
        {reviews.map((r) => (
          <li key={r.review_id} className="review" data-verdict={r.verdict}>
            <p>
              <span className={`badge v-${r.verdict}`}>{VERDICT_WORDS[r.verdict] ?? r.verdict}</span> by {ownerName(r.owner_id, meId, members, directory)}{' '}
              <time dateTime={r.created_at}>{formatTime(r.created_at)}</time>
              {r.follow_up_task_id && (
                <>
                  {' '}
                  · <a href={taskHref(roomId, r.follow_up_task_id)}>follow-up task</a>
                </>
              )}
            </p>
            {r.body && <p className="notes">{r.body}</p>}
            {r.comments.length > 0 && (
              <ul className="plain review-comments">
                {r.comments.map((c, i) => (
                  <li key={i}>
                    <code>
                      {c.path}:{c.line}
                    </code>
                    {c.quoted !== undefined && <pre className="quoted">{c.quoted}</pre>}
                    <span>{c.body}</span>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
