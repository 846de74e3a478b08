import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkoutCommit } from '../../src/eval/run-facts.js';

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

describe('checkoutCommit (results.git_hash) agrees with git itself', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'mlrb-git-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const repo = path.join(root, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  const commit = (message: string): void => {
    writeFileSync(path.join(repo, 'file.txt'), message);
    git(repo, 'add', 'file.txt');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', message);
  };
  commit('first');

  it('reads a clone, a worktree on another branch, packed refs and a detached HEAD', () => {
    expect(checkoutCommit(repo)).toBe(git(repo, 'rev-parse', 'HEAD'));
    const worktree = path.join(root, 'worktree');
    git(repo, 'worktree', 'add', '-q', '-b', 'side', worktree);
    commit('second');
    // The worktree's branch is still at the first commit; main moved on.
    expect(checkoutCommit(worktree)).toBe(git(worktree, 'rev-parse', 'HEAD'));
    expect(checkoutCommit(worktree)).not.toBe(checkoutCommit(repo));
    git(repo, 'pack-refs', '--all');
    expect(checkoutCommit(repo)).toBe(git(repo, 'rev-parse', 'HEAD'));
    expect(checkoutCommit(worktree)).toBe(git(worktree, 'rev-parse', 'HEAD'));
    git(worktree, 'checkout', '-q', '--detach');
    expect(checkoutCommit(worktree)).toBe(git(worktree, 'rev-parse', 'HEAD'));
  });

  it('is null where there is no checkout', () => {
    expect(checkoutCommit(root)).toBeNull();
  });
});
