import { defineRoute } from '../http/router.js';
import { ownAgent } from '../agents/service.js';
import { getConsent, setConsent } from './consent.js';
import { reportsForOwner } from './reports.js';
import { taskFeedbackOfRoom } from './task-feedback.js';
import { productFeedbackOfRoom } from './product.js';
import { consentChange } from './schemas.js';

/** What humans read of feedback: error reports, a room's task and product feedback, their agents' consent. */
export const feedbackRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/reports',
    handler: ({ core, owner }) => ({ reports: reportsForOwner(core.db, owner.owner_id) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/rooms/:id/feedback',
    room: 'member',
    handler: ({ core, room }) => ({ room: room.id, task_feedback: taskFeedbackOfRoom(core.db, room.id), product_feedback: productFeedbackOfRoom(core.db, room.id) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:plate/feedback-consent',
    handler: ({ core, owner, params }) => getConsent(core.db, ownAgent(core, owner, params.plate).plate),
  }),
  defineRoute({
    // The owner answering for their own agent is the most direct consent there is.
    method: 'PUT',
    path: '/v1/agents/:plate/feedback-consent',
    body: consentChange,
    handler: ({ core, owner, params }, { body }) => setConsent(core.db, ownAgent(core, owner, params.plate).plate, body),
  }),
];
