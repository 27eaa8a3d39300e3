import type { Route } from '../http/router.js';
import {
  acceptInvitationUseCase,
  addMemberUseCase,
  declineInvitationUseCase,
  listInvitationsUseCase,
  createRoomUseCase,
  getRoomUseCase,
  leaveRoomUseCase,
  listMembersUseCase,
  listRoomsUseCase,
  removeAgentUseCase,
  roomTrustUseCase,
  setTrustUseCase,
} from './use-cases.js';

/** The rooms' human API: every route is generated from its use case (rooms/use-cases.ts) and its contract (shared/contracts/rooms.ts). */
export const roomRoutes: Route[] = [
  createRoomUseCase.route,
  listRoomsUseCase.route,
  getRoomUseCase.route,
  listMembersUseCase.route,
  addMemberUseCase.route,
  removeAgentUseCase.route,
  leaveRoomUseCase.route,
  setTrustUseCase.route,
  roomTrustUseCase.route,
  listInvitationsUseCase.route,
  acceptInvitationUseCase.route,
  declineInvitationUseCase.route,
];
