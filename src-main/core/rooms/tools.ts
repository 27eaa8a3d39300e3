import { listMembersUseCase, listRoomsUseCase } from './use-cases.js';

// Other capabilities' room tools take their `room` argument from here.
export { roomIdArg } from './schemas.js';

/** The rooms' tools: each is generated from its use case (rooms/use-cases.ts). */
export const roomTools = [listRoomsUseCase.tool, listMembersUseCase.tool];
