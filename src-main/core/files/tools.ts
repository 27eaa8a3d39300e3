import { completeUploadUseCase, deleteFileUseCase, fetchFileUseCase, listFilesUseCase, readFileUseCase, shareFileUseCase, writeFileUseCase } from './use-cases.js';

/** The file tools, in their listed order: each is a use case's (files/use-cases.ts); the shared ones have their /v1 routes too. */
export const fileTools = [
  writeFileUseCase.tool,
  readFileUseCase.tool,
  listFilesUseCase.tool,
  deleteFileUseCase.tool,
  shareFileUseCase.tool,
  completeUploadUseCase.tool,
  fetchFileUseCase.tool,
];
