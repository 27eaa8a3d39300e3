import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { branchNameFor, safeSegment, taskShort, titleSlug } from '../../src-main/core/worktrees/names.js';
import { parseGitVersion, versionAtLeast } from '../../src-main/core/worktrees/git.js';

const run = promisify(execFile);

/** git's own judgement of a branch name (the system git, asynchronously). */
async function gitAccepts(branch: string): Promise<boolean> {
  try {
    await run('git', ['check-ref-format', `refs/heads/${branch}`]);
    return true;
  } catch {
    return false;
  }
}

describe('task worktree names (docs/worktrees.md)', () => {
  it('rooms/<last 8 of the task id>-<slug of the title>', () => {
    expect(branchNameFor('task_01J9ZQ3K7H2M4N5P6Q', 'Add a CHANGELOG entry for 0.2')).toBe('rooms/2m4n5p6q-add-a-changelog-entry-for-0-2');
    expect(taskShort('task_01J9ZQ3K7H2M4N5P6Q')).toBe('2m4n5p6q');
    expect(taskShort('___')).toBe('task');
    expect(titleSlug('Éclair: ünïcode – títle!')).toBe('eclair-unicode-title');
    expect(titleSlug('x'.repeat(100))).toHaveLength(40);
    expect(titleSlug('***')).toBe('work');
  });

  it('titles made to look like options, refs or paths that climb out give a plain valid branch', async () => {
    for (const title of ['--upload-pack=touch /tmp/x', '../../etc/passwd', 'a..b.lock', '@{-1}', 'HEAD', '-b evil', 'x/./y//z', 'ends with .', 'ends.lock', '\u0000\u001f\u007f', '~^:?*[\\']) {
      const b = branchNameFor('task_abcdefgh12345678', title);
      expect(b).toMatch(/^rooms\/[a-z0-9]{1,8}-[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(await gitAccepts(b), b).toBe(true);
    }
  });

  it('any title gives a name git accepts (property, checked by git itself)', async () => {
    const titles = fc.sample(fc.string({ unit: 'binary', maxLength: 120 }), 60);
    for (const t of titles) {
      const b = branchNameFor('task_0123456789ABCDEF', t);
      expect(b.length).toBeLessThanOrEqual('rooms/'.length + 8 + 1 + 40);
      expect(await gitAccepts(b), JSON.stringify(t)).toBe(true);
    }
  });

  it('only the server\'s own ids name folders', () => {
    expect(safeSegment('room_01ABC')).toBe('room_01ABC');
    for (const bad of ['..', '../x', 'a/b', '', 'x'.repeat(101), '.hidden', 'a b']) expect(safeSegment(bad)).toBeUndefined();
  });

  it('reads git versions and compares them with the minimum', () => {
    expect(parseGitVersion('git version 2.39.5')).toEqual([2, 39, 5]);
    expect(parseGitVersion('git version 2.45.1.windows.1')).toEqual([2, 45, 1]);
    expect(parseGitVersion('nope')).toBeUndefined();
    expect(versionAtLeast([2, 39, 5], '2.25.0')).toBe(true);
    expect(versionAtLeast([2, 25, 0], '2.25.0')).toBe(true);
    expect(versionAtLeast([2, 24, 9], '2.25.0')).toBe(false);
    expect(versionAtLeast([1, 99, 0], '2.25.0')).toBe(false);
  });
});
