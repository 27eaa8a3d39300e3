import { create } from 'zustand';
import { client } from '../client';
import type { ErrorReport, RoomFeedback } from '../types';
import { createRoomResource, sequencer, settle, type RoomResource } from './room-resource';

/** A room's task and product feedback from its agents; task feedback follows the board's steps. */
export const useFeedback = createRoomResource<RoomFeedback>({
  name: 'feedback',
  request: (roomId) => client.feedback.readRoom({ params: { id: roomId } }),
  refreshOn: ['board.changed', 'feedback.changed'],
  refreshDelayMs: 250,
});

interface ReportsState {
  reports: RoomResource<ErrorReport[]>;
  load: () => Promise<void>;
}

const reportLoads = sequencer();

/** The error reports the signed-in owner may read (not per room): the same guard and error policy as the room resources. */
export const useReports = create<ReportsState>((set) => ({
  reports: { loading: false },
  load: async () => {
    const n = reportLoads.ask('reports');
    set((s) => ({ reports: { ...s.reports, loading: true } }));
    const r = await client.feedback.listReports();
    if (reportLoads.isLatest('reports', n)) set((s) => ({ reports: settle(s.reports, r, (body) => body.reports) }));
  },
}));
