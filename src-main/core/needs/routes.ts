import type { Route } from '../http/router.js';
import { acknowledgeMentionsUseCase, dismissedNeedsUseCase, dismissNeedUseCase, needsYouUseCase, restoreNeedUseCase } from './use-cases.js';

/** "Needs you": what waits on the signed-in human across its rooms (docs/needs-you.md); every route is generated from its use case (needs/use-cases.ts). */
export const needsRoutes: Route[] = [needsYouUseCase.route, dismissNeedUseCase.route, restoreNeedUseCase.route, acknowledgeMentionsUseCase.route, dismissedNeedsUseCase.route];
