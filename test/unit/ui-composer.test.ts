import { describe, it, expect } from 'vitest';
import { afterSend, insideFence } from '../../src-renderer/src/components/composerRules.js';

describe('composer rules', () => {
  it('Enter is a new line inside an open code fence, a send outside one', () => {
    expect(insideFence('hello', 5)).toBe(false);
    expect(insideFence('```', 3)).toBe(true);
    expect(insideFence('```js\nconst a = 1;', 17)).toBe(true);
    expect(insideFence('```\nx\n```', 9)).toBe(false);
    expect(insideFence('  ~~~\nx', 7)).toBe(true);
    // Only the text before the caret counts.
    expect(insideFence('before\n```\nafter', 6)).toBe(false);
  });

  it('keeps what was typed while a message was being sent', () => {
    expect(afterSend('hello', 'hello')).toBe('');
    expect(afterSend('hello and more', 'hello')).toBe('and more');
    expect(afterSend('rewritten', 'hello')).toBe('rewritten');
  });
});
