import { InvalidInputError } from '../errors/index.js';

/**
 * Permission rules in Claude Code's syntax: `Tool` (every use of the tool), `Bash(npm test:*)`
 * (a command and anything after it), `Bash(git status)` (exactly that command; Codex's `shell`
 * takes the same specifiers), `Edit(src/**)` (a
 * path glob for the file tools), `WebFetch(domain:example.com)`, `mcp__server` (every tool of an
 * MCP server).
 */
export interface PermissionRule {
  tool: string;
  /** What is inside the parentheses; null for the whole tool. */
  specifier: string | null;
}

const fileTools = new Set(['Read', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'Glob', 'Grep']);
/** Tools whose specifier is a command: Claude's `Bash`, Codex's `shell` (the command inside its shell line). */
const commandTools = new Set(['Bash', 'shell']);
/** Commands a prefix rule never covers: a second command could hide behind the first. */
const compound = /&&|\|\||[;|`\n]|\$\(|>|</;

/** Parses a rule; `invalid_input` when it is not one agentd can match. */
export function parsePermissionRule(text: string): PermissionRule {
  const match = /^([A-Za-z][A-Za-z0-9_-]*)(?:\((.*)\))?$/s.exec(text.trim());
  if (!match)
    throw new InvalidInputError(
      `not a permission rule: ${text} (expected Tool or Tool(specifier), like Bash(npm test:*))`,
      {
        rule: text,
      },
    );
  const tool = match[1]!;
  const specifier = match[2] === undefined ? null : match[2].trim();
  if (specifier === '')
    throw new InvalidInputError(
      `permission rule ${text} has an empty specifier: write ${tool} for every use`,
      {
        rule: text,
      },
    );
  if (specifier !== null && !commandTools.has(tool) && tool !== 'WebFetch' && !fileTools.has(tool))
    throw new InvalidInputError(
      `permission rule ${text}: a specifier works for Bash, shell, WebFetch and the file tools; write ${tool} for every use`,
      { rule: text },
    );
  if (tool === 'WebFetch' && specifier !== null && !specifier.startsWith('domain:'))
    throw new InvalidInputError(`permission rule ${text}: WebFetch takes domain:HOST`, { rule: text });
  return { tool, specifier };
}

export function formatPermissionRule(rule: PermissionRule): string {
  return rule.specifier === null ? rule.tool : `${rule.tool}(${rule.specifier})`;
}

/** Whether the rule covers this use of a tool. */
export function ruleMatches(rule: PermissionRule, toolName: string, input: Record<string, unknown>): boolean {
  const sameTool =
    rule.tool === toolName || (rule.tool.startsWith('mcp__') && toolName.startsWith(`${rule.tool}__`));
  if (!sameTool) return false;
  if (rule.specifier === null) return true;
  if (commandTools.has(toolName)) {
    const command = typeof input.command === 'string' ? input.command.trim() : null;
    if (command === null) return false;
    if (!rule.specifier.endsWith(':*')) return command === rule.specifier;
    const prefix = rule.specifier.slice(0, -2).trim();
    return !compound.test(command) && (command === prefix || command.startsWith(`${prefix} `));
  }
  if (toolName === 'WebFetch') {
    const domain = rule.specifier.slice('domain:'.length);
    const host = hostOf(input.url);
    return host !== null && (host === domain || host.endsWith(`.${domain}`));
  }
  const path = pathOf(input);
  return path !== null && globMatches(rule.specifier, path);
}

/** The narrowest rule for exactly this use: what a scoped answer remembers unless it names a rule. */
export function ruleForUse(toolName: string, input: Record<string, unknown>): PermissionRule {
  if (commandTools.has(toolName) && typeof input.command === 'string')
    return { tool: toolName, specifier: input.command.trim() };
  if (toolName === 'WebFetch') {
    const host = hostOf(input.url);
    if (host) return { tool: toolName, specifier: `domain:${host}` };
  }
  const path = fileTools.has(toolName) ? pathOf(input) : null;
  return { tool: toolName, specifier: path };
}

function pathOf(input: Record<string, unknown>): string | null {
  for (const key of ['file_path', 'notebook_path', 'path']) {
    const value = input[key];
    if (typeof value === 'string' && value) return value;
  }
  return null;
}

function hostOf(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

/** `**` any run of characters, `*` any run without `/`, `?` one character; the rest literal. */
function globMatches(glob: string, path: string): boolean {
  let pattern = '';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index]!;
    if (char === '*' && glob[index + 1] === '*') {
      pattern += '.*';
      index++;
    } else if (char === '*') pattern += '[^/]*';
    else if (char === '?') pattern += '[^/]';
    else pattern += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`).test(path);
}
