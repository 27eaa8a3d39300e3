import { describe, it, expect } from 'vitest';
import { parseLenientObject, stripJsonComments } from '../../src-main/core/util/lenient-json.js';

describe('lenient JSON of settings files', () => {
  it('keeps every entry of a file with comments and trailing commas', () => {
    const text = '{\n  // mine\n  "mcpServers": { "a": { "url": "http://x/y//z", "note": "/* not a comment */", }, },\n  /* block */ "n": [1, 2,],\n}';
    const r = parseLenientObject(text);
    expect(r).toEqual({ value: { mcpServers: { a: { url: 'http://x/y//z', note: '/* not a comment */' } }, n: [1, 2] }, strict: false });
  });

  it('says strict for plain JSON and an empty file is an empty object', () => {
    expect(parseLenientObject('{"a":1}')).toEqual({ value: { a: 1 }, strict: true });
    expect(parseLenientObject('  ')).toEqual({ value: {}, strict: true });
  });

  it('refuses what is not an object even leniently', () => {
    expect(parseLenientObject('{ "a": ')).toHaveProperty('error');
    expect(parseLenientObject('[1]')).toEqual({ error: 'the top level is not a JSON object' });
  });

  it('leaves commas and slashes inside strings alone, escaped quotes included', () => {
    expect(stripJsonComments('{"a": "x,}\\" // y", "b": 1,}')).toBe('{"a": "x,}\\" // y", "b": 1}');
  });
});
