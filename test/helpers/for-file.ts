import { afterAll, beforeAll } from 'vitest';

/**
 * Something a whole test file shares (a server, a browser, a host's rig), opened before its tests
 * (beforeAll) and closed after them (afterAll). Returns it, readable from the first test or a later
 * hook on: `const ui = forFile(() => openUi())`, then `ui.s` in the tests.
 */
export function forFile<T extends { close(): Promise<void> }>(open: () => Promise<T>, timeoutMs?: number): Omit<T, 'close'> {
  let value: T | undefined;
  beforeAll(async () => {
    value = await open();
  }, timeoutMs);
  afterAll(() => value?.close());
  return new Proxy({} as Omit<T, 'close'>, {
    get(_target, key) {
      if (!value) throw new Error(`${String(key)}: opened in beforeAll, so read it from a test or a later hook`);
      return Reflect.get(value, key) as unknown;
    },
  });
}
