import { describe, it, expect } from 'vitest';
import { newId, seqId, seqOfId } from '../../src-main/core/util/ids.js';

/** Ids that carry their row (docs/performance.md, "Ids that carry their row"): a wake's and an inbox item's id names its seq. */
describe('seq ids', () => {
  it('carry the seq they were minted from, for every seq up to 40 bits, in the shape of every other public id', () => {
    for (const seq of [1, 2, 31, 32, 1023, 1024, 123_456_789, 32 ** 8 - 1]) {
      const id = seqId('wake', seq);
      expect(id).toMatch(/^wake_[0-9a-hjkmnp-tv-z]{26}$/);
      expect(seqOfId('wake', id)).toBe(seq);
      expect(seqOfId('mnt', id)).toBeUndefined();
    }
    expect(newId('wake').length).toBe(seqId('wake', 7).length);
  });

  it('sort by time first, as a ULID does, and are not guessable from the seq', () => {
    const a = seqId('mnt', 900, 1_000);
    const b = seqId('mnt', 5, 2_000);
    expect([b, a].sort()).toEqual([a, b]);
    const same = new Set(Array.from({ length: 50 }, () => seqId('mnt', 42, 1_000)));
    expect(same.size).toBe(50);
  });

  it('refuse seqs that do not fit, and read no seq out of strings of another shape', () => {
    for (const bad of [0, -1, 1.5, 32 ** 8, Number.NaN]) expect(() => seqId('wake', bad)).toThrow(/does not fit/);
    for (const s of ['', 'wake_', 'wake_x', 'wakes01jz00000000000002cccccccc', 'wake_01jz0000000000000!cccccccc', 'wake_01jz00000000000000cccccccc', `wake_${'0'.repeat(27)}`]) {
      expect(seqOfId('wake', s), s).toBeUndefined();
    }
  });
});
