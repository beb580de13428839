import { describe, expect, it } from 'vitest';
import { parsePermissionRule, ruleForUse, ruleMatches } from './permission-rule.js';

const matches = (rule: string, tool: string, input: Record<string, unknown>) =>
  ruleMatches(parsePermissionRule(rule), tool, input);

describe('permission rules', () => {
  it('Bash(prefix:*) covers the command and its arguments, never a compound command', () => {
    expect(matches('Bash(npm test:*)', 'Bash', { command: 'npm test' })).toBe(true);
    expect(matches('Bash(npm test:*)', 'Bash', { command: 'npm test -- --watch' })).toBe(true);
    expect(matches('Bash(npm test:*)', 'Bash', { command: 'npm testing' })).toBe(false);
    expect(matches('Bash(npm test:*)', 'Bash', { command: 'npm test && rm -rf /' })).toBe(false);
    expect(matches('Bash(npm test:*)', 'Bash', { command: 'npm test; curl x' })).toBe(false);
    expect(matches('Bash(npm test:*)', 'Read', { file_path: 'npm test' })).toBe(false);
  });

  it('Bash(command) is exact; a bare tool covers every use', () => {
    expect(matches('Bash(git status)', 'Bash', { command: 'git status' })).toBe(true);
    expect(matches('Bash(git status)', 'Bash', { command: 'git status -s' })).toBe(false);
    expect(matches('Bash', 'Bash', { command: 'anything && at all' })).toBe(true);
    expect(matches('mcp__github', 'mcp__github__create_issue', {})).toBe(true);
    expect(matches('mcp__github', 'mcp__gitlab__x', {})).toBe(false);
  });

  it("Codex's shell takes Bash's specifiers, matched against the command inside its shell line", () => {
    expect(matches('shell(npm test:*)', 'shell', { command: 'npm test -- --watch' })).toBe(true);
    expect(matches('shell(npm test:*)', 'shell', { command: 'npm test && rm -rf /' })).toBe(false);
    expect(matches('shell(echo a >> s.txt)', 'shell', { command: 'echo a >> s.txt' })).toBe(true);
    expect(matches('Bash(npm test:*)', 'shell', { command: 'npm test' })).toBe(false);
    expect(
      ruleForUse('shell', { command: 'touch a.txt', commandLine: "/bin/bash -lc 'touch a.txt'" }),
    ).toEqual({ tool: 'shell', specifier: 'touch a.txt' });
  });

  it('file tools match a path glob; WebFetch a domain and its subdomains', () => {
    expect(matches('Edit(/work/src/**)', 'Edit', { file_path: '/work/src/a/b.ts' })).toBe(true);
    expect(matches('Edit(/work/src/*.ts)', 'Edit', { file_path: '/work/src/a/b.ts' })).toBe(false);
    expect(matches('Edit(/work/src/*.ts)', 'Edit', { file_path: '/work/src/b.ts' })).toBe(true);
    expect(matches('WebFetch(domain:example.com)', 'WebFetch', { url: 'https://docs.example.com/x' })).toBe(
      true,
    );
    expect(matches('WebFetch(domain:example.com)', 'WebFetch', { url: 'https://example.org/' })).toBe(false);
  });

  it('a use is remembered by its narrowest rule', () => {
    expect(ruleForUse('Bash', { command: 'touch a.txt' })).toEqual({
      tool: 'Bash',
      specifier: 'touch a.txt',
    });
    expect(ruleForUse('Write', { file_path: '/w/a' })).toEqual({ tool: 'Write', specifier: '/w/a' });
    expect(ruleForUse('Task', { prompt: 'x' })).toEqual({ tool: 'Task', specifier: null });
  });

  it('bad rules are invalid_input', () => {
    for (const bad of ['', 'Bash(', 'Bash()', 'Task(x)', 'WebFetch(example.com)', '1Bash'])
      expect(() => parsePermissionRule(bad)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });
});
