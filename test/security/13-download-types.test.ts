// Item 13: downloads are served on the UI's origin. A room file stored as JavaScript would be a
// same-origin script: one markup injection in the UI could load it past `script-src 'self'`.
// Every executable type is served as an application/octet-stream attachment while the file entry
// still reports the stored type. Here, in process: the rule (servedContentType) and the file entry.
// The download itself, its headers and the script load in Chromium cross the listener:
// test/integration/http-adapter.test.ts.
import { describe, it, expect } from 'vitest';
import { ok } from '../helpers/server.js';
import { appFor, seatFor } from '../helpers/seat.js';
import { servedContentType } from '../../src-main/core/files/http.js';
import { EXECUTABLE } from '../helpers/download-types.js';

describe('item 13: no executable content type on the UI origin', () => {
  const s = appFor({ rateLimit: { perSecond: 0, burst: 0 } });
  const seat = seatFor(s, 'Uploader', 'Downloads');

  async function downloadUrl(path: string, contentType: string, content: string): Promise<{ url: string; fileId: string }> {
    const w = await ok(seat.c, 'write_file', { room: seat.room, path, content, content_type: contentType });
    const d = await s.api('GET', `/v1/rooms/${seat.room}/files/${w.file_id}/download`);
    expect(d.status).toBe(200);
    return { url: d.body.download_url, fileId: w.file_id };
  }

  it.each(EXECUTABLE)('%s stored as %s is to be served as an octet-stream, and listed as stored', async (path, type) => {
    await downloadUrl(path, type, 'window.pwned = true;');
    expect(servedContentType(type)).toBe('application/octet-stream');
    const listed = await s.api('GET', `/v1/rooms/${seat.room}/files`);
    expect(listed.body.files.find((f: { path: string }) => f.path === path).content_type).toBe(type);
  });

  it('passive types keep their stored type', async () => {
    await downloadUrl('notes.txt', 'text/plain; charset=utf-8', 'hello');
    expect(servedContentType('text/plain; charset=utf-8')).toBe('text/plain; charset=utf-8');
    expect(servedContentType('image/png')).toBe('image/png');
    expect(servedContentType('IMAGE/SVG+XML')).toBe('application/octet-stream');
    expect(servedContentType('text/javascript;charset=utf-8')).toBe('application/octet-stream');
    expect(servedContentType('application/x-unknown')).toBe('application/octet-stream');
  });
});
