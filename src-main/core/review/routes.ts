import { mergeTaskUseCase, pushTaskUseCase, listReviewsUseCase, submitReviewUseCase, taskChangesUseCase } from './use-cases.js';

/** The human API of review (docs/review.md): a task's changes, its merge, its reviews and its push, each a use case's (review/use-cases.ts). */
export const reviewRoutes = [taskChangesUseCase.route, mergeTaskUseCase.route, submitReviewUseCase.route, listReviewsUseCase.route, pushTaskUseCase.route];
