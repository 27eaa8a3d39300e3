import { describe, it, expect } from 'vitest';
import { countSentences, splitSentences } from '../../src-main/core/feedback/sentences.js';

describe('sentence counting', () => {
  it.each([
    ['', 0],
    ['   ', 0],
    ['...', 0],
    ['One sentence.', 1],
    ['No final stop', 1],
    ['One. Two. Three.', 3],
    ['Really?! Yes. Good!', 3],
    // abbreviations do not end a sentence
    ['Use a read tool, e.g. read_board. Then act.', 2],
    ['Stop early, i.e. before claiming. Then wait.', 2],
    ['Dr. Rivers and Mr. Li saw it. Prof. Chen did not.', 2],
    ['Compare A vs. B carefully. It matters.', 2],
    ['See No. 5 and p. 12 first. Then decide.', 2],
    ['It ended etc. Then it restarted.', 2],
    // numbers and versions
    ['Pi is 3.14 here. It was 2.5 before.', 2],
    ['Upgrade to v1.2.3. Then retry.', 2],
    ['Upgrade to v1.2.3 now. Node 20.19.0 is fine.', 2],
    ['The file config.json broke. The index.ts did not.', 2],
    // ellipses
    ['It stalled... then resumed.', 1],
    ['It stalled... Then it resumed.', 2],
    ['It stalled… Then it resumed…', 2],
    ['Wait...', 1],
    // quotes and brackets after the stop
    ['He said "stop." Then he left.', 2],
    ['It failed (twice.) Then it passed.', 2],
    // a new sentence may start with a digit
    ['Two tasks failed. 3 more passed.', 2],
    // lower case after a stop is not a new sentence (a lone abbreviation-like stop)
    ['The value was approx. five units.', 1],
  ])('%j has %i sentences', (text, n) => {
    expect(countSentences(text)).toBe(n);
  });

  it('keeps each sentence whole', () => {
    expect(splitSentences('Use e.g. v1.2.3 here. Dr. Who agreed… Then 3.14 was used.')).toEqual([
      'Use e.g. v1.2.3 here.',
      'Dr. Who agreed…',
      'Then 3.14 was used.',
    ]);
  });

  it('collapses whitespace and line breaks', () => {
    expect(splitSentences('First line.\n\nSecond   line.\tThird.')).toEqual(['First line.', 'Second line.', 'Third.']);
  });
});
