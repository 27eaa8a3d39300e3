import { z } from 'zod';
import { defineUseCase } from '../usecase/define.js';
import { dismissNeedInput, needDismissal, restoreNeedOutput } from '../../../shared/schemas/needs.js';
import { invalid } from '../errors/app-error.js';
import { acknowledgeMentions, dismissNeed, restoreNeed } from './service.js';

/** The path's kind and ref, checked as the body's are (a bad kind is a 400 with an error_id). */
function kindAndRef(kind: string, ref: string) {
  const r = dismissNeedInput.safeParse({ kind, ref });
  if (!r.success) throw invalid(`kind must be one of ${dismissNeedInput.shape.kind.options.join(', ')}, ref an id`, 'bad_need');
  return r.data;
}

/** Dismissing a Needs you item, and its undo (docs/needs-you.md "Dismissing"): the owner's own, stored. */
export const dismissNeedUseCase = defineUseCase({
  input: dismissNeedInput,
  output: needDismissal,
  handler: ({ core, caller }, input) => dismissNeed(core.db, caller.ownerId, input.kind, input.ref),
  route: { method: 'POST', path: '/v1/needs-you/dismissals', status: 201 },
});

export const restoreNeedUseCase = defineUseCase({
  input: dismissNeedInput,
  output: restoreNeedOutput,
  handler: ({ core, caller }, input) => restoreNeed(core.db, caller.ownerId, input.kind, input.ref),
  route: { method: 'DELETE', path: '/v1/needs-you/dismissals/:kind/:ref', input: ({ params }) => kindAndRef(params.kind, params.ref) },
});

/** The owner read a room up to a message: its mentions there are acknowledged (docs/needs-you.md "What leaves by itself"). */
export const acknowledgeMentionsUseCase = defineUseCase({
  input: z.object({ room: z.string().min(1).max(100), seq: z.number().int().min(0) }),
  output: z.object({ acknowledged: z.number().int() }),
  room: 'member',
  handler: ({ core, caller }, input) => acknowledgeMentions(core.db, caller.ownerId, input.room, input.seq),
  route: { method: 'POST', path: '/v1/rooms/:id/mentions/acknowledge' },
});
