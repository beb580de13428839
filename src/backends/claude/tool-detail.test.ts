import { describe, expect, it } from 'vitest';
import { formatToolDetail } from './tool-detail.js';

describe('formatToolDetail', () => {
  it.each([
    ['Bash', { command: 'ls -la', description: 'list files' }, 'Bash: ls -la'],
    ['Read', { file_path: 'src/index.ts', offset: 10 }, 'Read: src/index.ts'],
    ['Write', { file_path: 'notes.md', content: 'hello' }, 'Write: notes.md'],
    ['Edit', { file_path: 'a.ts', old_string: 'x', new_string: 'y' }, 'Edit: a.ts'],
    ['NotebookEdit', { notebook_path: 'n.ipynb', new_source: 'x' }, 'NotebookEdit: n.ipynb'],
    ['Glob', { pattern: '**/*.ts', path: 'src' }, 'Glob: **/*.ts'],
    ['Grep', { pattern: 'TODO', path: 'src' }, 'Grep: TODO'],
    ['WebFetch', { url: 'https://example.com', prompt: 'summarize' }, 'WebFetch: https://example.com'],
    ['WebSearch', { query: 'vitest forks' }, 'WebSearch: vitest forks'],
    ['Task', { description: 'find the bug', prompt: 'long prompt' }, 'Task: find the bug'],
    ['Agent', { description: 'review', prompt: 'long prompt' }, 'Agent: review'],
    ['Skill', { skill: 'dataviz' }, 'Skill: dataviz'],
  ])('%s shows its main argument', (name, input, detail) => {
    expect(formatToolDetail(name, input)).toBe(detail);
  });

  it('AskUserQuestion shows the first question', () => {
    const input = { questions: [{ question: 'Which port?', options: [] }, { question: 'Second?' }] };
    expect(formatToolDetail('AskUserQuestion', input)).toBe('AskUserQuestion: Which port?');
  });

  it('an unknown tool (an MCP tool) shows its first string argument', () => {
    expect(formatToolDetail('mcp__github__create_issue', { number: 3, title: 'Crash on start' })).toBe(
      'mcp__github__create_issue: Crash on start',
    );
  });

  it('a known tool missing its main field falls back to the first string argument', () => {
    expect(formatToolDetail('Bash', { command: '', description: 'nothing' })).toBe('Bash: nothing');
  });

  it('a tool without any string argument shows just its name', () => {
    expect(formatToolDetail('TaskStop', { id: 4 })).toBe('TaskStop');
    expect(formatToolDetail('Bash', {})).toBe('Bash');
  });

  it('collapses a multi-line command onto one line', () => {
    expect(formatToolDetail('Bash', { command: 'cd /tmp\n  && ls\t-la' })).toBe('Bash: cd /tmp && ls -la');
  });

  it('clips long arguments to 120 characters with an ellipsis', () => {
    const detail = formatToolDetail('Bash', { command: `echo ${'x'.repeat(300)}` });
    expect(detail).toHaveLength(120);
    expect(detail.startsWith('Bash: echo xxx')).toBe(true);
    expect(detail.endsWith('…')).toBe(true);
  });
});
