const maxLength = 120;

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > maxLength ? `${line.slice(0, maxLength - 1)}…` : line;
}

const primaryField: Record<string, string> = {
  Bash: 'command',
  Read: 'file_path',
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
  Glob: 'pattern',
  Grep: 'pattern',
  WebFetch: 'url',
  WebSearch: 'query',
  Task: 'description',
  Agent: 'description',
  Skill: 'skill',
};

/** One line a person can read for a tool call: `Bash: ls -la`, `Read: src/index.ts`. */
export function formatToolDetail(name: string, input: Record<string, unknown>): string {
  const field = primaryField[name];
  const value = field === undefined ? undefined : input[field];
  if (typeof value === 'string' && value.trim().length > 0) return clip(`${name}: ${value}`);
  if (name === 'AskUserQuestion' && Array.isArray(input.questions)) {
    const first = input.questions[0] as { question?: unknown } | undefined;
    if (typeof first?.question === 'string') return clip(`${name}: ${first.question}`);
  }
  const firstString = Object.values(input).find(
    (entry) => typeof entry === 'string' && entry.trim().length > 0,
  );
  return typeof firstString === 'string' ? clip(`${name}: ${firstString}`) : name;
}
