import { client } from '../client';
import type { Wake, WakePage } from '../types';
import { createRoomResource } from './room-resource';

/** A room's wake log (contracts.wakes.roomLog: the newest page of `wakes`). */
export const useWakes = createRoomResource<Wake[], object, WakePage>({
  name: 'wakes',
  request: (roomId) => client.wakes.roomLog({ params: { id: roomId } }),
  accept: (page) => page.wakes,
  refreshOn: ['wakes.changed'],
  refreshDelayMs: 250,
});
