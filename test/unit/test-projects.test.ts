import { describe, it, expect } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IN_PROCESS_FILES, IN_PROCESS_FOLDER, IN_PROCESS_SERVING } from '../../vitest.config.js';

/**
 * The files of the in-process project share a worker (docs/testing.md "Two projects"): none may
 * start what only a process of its own should hold, or change the process for the files after it.
 * Read from each file's source: what a file calls, not what it says it does.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * What keeps a file out of the in-process project (docs/testing.md gives the reasons), unless the file
 * also undoes it (`undone`), and an isolated file that does it, so each check is seen to find what it
 * looks for.
 */
const OWN_PROCESS: Array<{ why: string; re: RegExp; undone?: RegExp; seenIn?: string; serving?: true }> = [
  // What a file of IN_PROCESS_SERVING may do (it stops them), and no other in-process file.
  { why: 'a server on a port (startTestServer)', re: /\bstartTestServer\(/, seenIn: 'test/integration/core-sessions.test.ts', serving: true },
  { why: 'a server on a port (startCore)', re: /\bstartCore\(/, seenIn: 'test/integration/core-sessions.test.ts', serving: true },
  { why: 'the CLI in a child process', re: /\b(spawnServer|cliArgs)\(/, seenIn: 'test/integration/durability-home.test.ts', serving: true },
  { why: 'a change to the HTTP timeouts of the process', re: /\bhttpTimeouts\.\w+\s*=(?!=)|Object\.assign\(httpTimeouts/, seenIn: 'test/integration/limits-http.test.ts' },
  { why: 'a browser', re: /\b(openUi|launchBrowser)\(/, seenIn: 'test/integration/http-adapter.test.ts' },
  {
    why: 'a change to process.env',
    re: /process\.env(\.\w+|\[[^\]]+\])\s*(=(?!=)|\?\?=)|delete process\.env|Object\.assign\(process\.env/,
    seenIn: 'test/integration/wakes-channel.test.ts',
  },
  { why: 'a stubbed environment variable not unstubbed', re: /vi\.stubEnv\(/, undone: /vi\.unstubAllEnvs\(/ },
  { why: 'a stubbed global not unstubbed', re: /vi\.stubGlobal\(/, undone: /vi\.unstubAllGlobals\(/ },
  { why: 'fake timers not given back', re: /vi\.useFakeTimers\(/, undone: /vi\.useRealTimers\(/ },
  { why: 'a mocked module', re: /vi\.(mock|doMock)\(/ },
  { why: 'a change of the working folder or a process listener', re: /process\.(chdir|on|once)\(/ },
];

const inProcess = [
  ...readdirSync(join(ROOT, IN_PROCESS_FOLDER), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `${IN_PROCESS_FOLDER}/${f}`),
  ...IN_PROCESS_FILES,
  ...IN_PROCESS_SERVING,
];
const serving = new Set(IN_PROCESS_SERVING);

describe('the in-process project (vitest.config.ts)', () => {
  it('names only files that exist', () => {
    expect(IN_PROCESS_FILES.filter((f) => !existsSync(join(ROOT, f)))).toEqual([]);
    expect(inProcess.length).toBeGreaterThan(IN_PROCESS_FILES.length);
  });

  it('holds no file that needs a process of its own', () => {
    const found = inProcess.flatMap((f) => {
      const source = readFileSync(join(ROOT, f), 'utf8');
      return OWN_PROCESS.filter((c) => c.re.test(source) && !c.undone?.test(source) && !(c.serving && serving.has(f))).map((c) => `${f}: ${c.why}`);
    });
    expect(found).toEqual([]);
  });

  it('a file listed as serving starts a server or the CLI, and stops what it starts', () => {
    const starts = OWN_PROCESS.filter((c) => c.serving);
    const found = IN_PROCESS_SERVING.flatMap((f) => {
      const source = readFileSync(join(ROOT, f), 'utf8');
      if (!starts.some((c) => c.re.test(source))) return [`${f}: starts neither (list it in IN_PROCESS_FILES)`];
      if (IN_PROCESS_FILES.includes(f)) return [`${f}: listed twice`];
      // The helpers stop what they started: the file's hook (forFile) or its own stop, close or kill.
      return /\bforFile\(|\.(stop|close|kill)\(/.test(source) ? [] : [`${f}: stops nothing it starts`];
    });
    expect(found).toEqual([]);
  });

  it('the checks find what they look for in the isolated files', () => {
    for (const c of OWN_PROCESS.filter((x) => x.seenIn)) {
      expect(inProcess, c.seenIn).not.toContain(c.seenIn);
      expect(c.re.test(readFileSync(join(ROOT, c.seenIn!), 'utf8')), `${c.why} in ${c.seenIn}`).toBe(true);
    }
  });
});
