import type { Route } from '../http/router.js';
import {
  addOwnerUseCase,
  endOtherUiSessionsUseCase,
  endUiSessionUseCase,
  listOwnersUseCase,
  listPeopleUseCase,
  listUiSessionsUseCase,
  loginLinkForOwnerUseCase,
  loginLinkUseCase,
  meUseCase,
  setOwnerRightsUseCase,
} from './use-cases.js';

/** The owners' routes, each generated from its use case (use-cases.ts), in the order docs/contract.md lists them. */
export const ownerRoutes: Route[] = [
  meUseCase.route,
  // The caller's window sessions (Settings): listed, ended one by one or all but this browser's.
  listUiSessionsUseCase.route,
  endUiSessionUseCase.route,
  endOtherUiSessionsUseCase.route,
  listOwnersUseCase.route,
  listPeopleUseCase.route,
  setOwnerRightsUseCase.route,
  addOwnerUseCase.route,
  loginLinkForOwnerUseCase.route,
  loginLinkUseCase.route,
];
