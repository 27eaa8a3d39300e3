import { create } from 'zustand';
import { enc, get } from '../api';
import type { ErrorReport, Reports, RoomFeedback } from '../types';
import { createRoomResource, sequencer, settle, type RoomResource } from './room-resource';

/** A room's task and product feedback from its agents; task feedback follows the board's steps. */
export const useFeedback = createRoomResource<RoomFeedback>({
  name: 'feedback',
  request: (roomId) => get<RoomFeedback>(`/v1/rooms/${enc(roomId)}/feedback`),
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
    const r = await get<Reports>('/v1/reports');
    if (reportLoads.isLatest('reports', n)) set((s) => ({ reports: settle(s.reports, r, (body) => body.reports) }));
  },
}));
