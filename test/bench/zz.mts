import { openDb } from '/work/wt-lead/src-main/core/db/open.js';
const db = openDb(':memory:');
const qs = [
 "SELECT * FROM wakes WHERE room_id = ? AND status = ? ORDER BY seq DESC LIMIT ?",
 "SELECT * FROM wakes WHERE plate = ? AND status = ? ORDER BY seq DESC LIMIT ?",
 "SELECT MAX(chain_depth) AS d FROM wakes WHERE status = 'running' AND plate = ?",
 "SELECT 1 FROM wakes WHERE status = 'running' AND instance_id = ? AND room_id = ? AND host = ? LIMIT 1",
 "SELECT * FROM wakes WHERE status = 'running' ORDER BY seq",
 "SELECT MIN(COALESCE(started_at, created_at)) AS t FROM wakes WHERE status = 'running' AND plate = ?",
 "SELECT 1 FROM wakes WHERE status = 'running' AND target = 'channel' AND instance_id = ? AND room_id = ? LIMIT 1",
 "SELECT * FROM wakes WHERE plate = ? AND room_id = ? AND status = 'queued' AND seq < ? ORDER BY seq LIMIT 1",
 "SELECT * FROM wakes WHERE plate = ? AND room_id = ? AND status = 'queued' AND trigger = 'mention' AND seq > ? ORDER BY seq",
 "SELECT 1 FROM wakes WHERE status = 'queued' AND target = 'pull' AND plate = ? AND room_id = ? LIMIT 1",
 "SELECT * FROM wakes WHERE room_id = ? ORDER BY seq DESC LIMIT ?",
 "SELECT * FROM wakes WHERE plate = ? ORDER BY seq DESC LIMIT ?",
];
for (const q of qs) console.log(q.slice(0,90), '\n   ', (db.prepare('EXPLAIN QUERY PLAN ' + q).all(...Array((q.match(/\?/g)||[]).length).fill(null)) as any[]).map(r => r.detail).join(' ; '));
