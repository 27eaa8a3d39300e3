import { enc, get } from '../api';
import type { Wake, WakePage } from '../types';
import { createRoomResource } from './room-resource';

/** A room's wake log (GET /v1/rooms/:id/wakes: the newest page of `wakes`). */
export const useWakes = createRoomResource<Wake[], object, WakePage>({
  name: 'wakes',
  request: (roomId) => get<WakePage>(`/v1/rooms/${enc(roomId)}/wakes`),
  accept: (page) => page.wakes,
  refreshOn: ['wakes.changed'],
  refreshDelayMs: 250,
});
