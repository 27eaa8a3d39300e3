import {
  completeUploadUseCase,
  deleteFileUseCase,
  fetchFileUseCase,
  listDeletedFilesUseCase,
  listFilesUseCase,
  restoreFileUseCase,
  shareFileUseCase,
} from './use-cases.js';

/**
 * The UI's file routes: the same presigned flow as the tools, with the human as uploader. Listing,
 * starting, finishing, fetching and deleting are use cases shared with the tools; the trash and
 * restoring from it are the UI's own (files/use-cases.ts, contracts in shared/contracts/files.ts).
 */
export const fileRoutes = [
  listFilesUseCase.route,
  shareFileUseCase.route,
  completeUploadUseCase.route,
  fetchFileUseCase.route,
  deleteFileUseCase.route,
  listDeletedFilesUseCase.route,
  restoreFileUseCase.route,
];
