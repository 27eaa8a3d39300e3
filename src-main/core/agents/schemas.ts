/** An agent's owner as tool results show it beside the agent (members, handle candidates). */
export { agentOwnerRef } from '../../../shared/schemas/rooms.js';
