import { z } from 'zod';
import type { LegacyRoute } from '../http/router.js';
import { parseWith } from '../http/validate.js';
import { requireHumanRoom } from '../rooms/store.js';
import { ownAgent } from '../agents/routes.js';
import { getConsent, setConsent } from './consent.js';
import { reportsForOwner } from './reports.js';
import { taskFeedbackOfRoom } from './task-feedback.js';
import { productFeedbackOfRoom } from './product.js';

/** What humans read of feedback: error reports, a room's task and product feedback, their agents' consent. */
export const feedbackRoutes: LegacyRoute[] = [
  {
    method: 'GET',
    path: '/v1/reports',
    handler: ({ core, owner }) => ({ reports: reportsForOwner(core.db, owner.owner_id) }),
  },
  {
    method: 'GET',
    path: '/v1/rooms/:id/feedback',
    handler: ({ core, owner, params }) => {
      const room = requireHumanRoom(core.db, params.id!, owner.owner_id);
      return { room: room.id, task_feedback: taskFeedbackOfRoom(core.db, room.id), product_feedback: productFeedbackOfRoom(core.db, room.id) };
    },
  },
  {
    method: 'GET',
    path: '/v1/agents/:plate/feedback-consent',
    handler: ({ core, owner, params }) => getConsent(core.db, ownAgent(core, owner, params.plate!).plate),
  },
  {
    // The owner answering for their own agent is the most direct consent there is.
    method: 'PUT',
    path: '/v1/agents/:plate/feedback-consent',
    handler: ({ core, owner, params, body }) => {
      const a = ownAgent(core, owner, params.plate!);
      const input = parseWith(z.object({ bugs: z.boolean().optional(), product: z.boolean().optional(), revoked: z.boolean().optional() }), body);
      return setConsent(core.db, a.plate, input);
    },
  },
];
