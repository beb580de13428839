import { describe, expect, it } from 'vitest';
import { innerCommand, splitShellWords } from './command-line.js';

describe('command lines', () => {
  it('splits words as a shell does: quotes, escapes, runs of blanks', () => {
    expect(splitShellWords(`/bin/bash -lc 'echo made > made.txt && echo ran-it'`)).toEqual([
      '/bin/bash',
      '-lc',
      'echo made > made.txt && echo ran-it',
    ]);
    expect(splitShellWords(`a "b \\"c\\" d"  e\\ f 'g'"h"`)).toEqual(['a', 'b "c" d', 'e f', 'gh']);
    expect(splitShellWords(`echo 'it'"'"'s'`)).toEqual(['echo', "it's"]);
    expect(splitShellWords(`echo 'open`)).toBeNull();
  });

  it("the command inside codex's shell wrapper is what the agent asked to run", () => {
    expect(innerCommand(`/bin/bash -lc 'npm test'`)).toBe('npm test');
    expect(innerCommand(`/usr/bin/zsh -c 'ls -la'`)).toBe('ls -la');
    expect(innerCommand('git status')).toBe('git status');
    expect(innerCommand(`/bin/bash -lc 'a' extra`)).toBe(`/bin/bash -lc 'a' extra`);
  });
});
