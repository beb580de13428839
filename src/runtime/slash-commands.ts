import { InvalidInputError, UnknownCommandError } from '../errors/index.js';

/**
 * The closed slash-command protocol: a message that starts with `/` is a command, never text for the
 * agent. Only these commands exist; anything else is refused with `unknown_command`, so that a typo
 * (or one of claude's own commands) is never downgraded to a prompt. `//text` sends `/text` as text.
 */
export const slashCommands = {
  compact: "resume the session and compact its context (claude's /compact, sent exactly)",
  goal: "set claude's own goal, sent exactly: /goal CONDITION keeps it working until the condition holds; /goal clear ends it",
  stop: 'stop the session’s worker',
  status: 'show the session: its worker, pending approvals, spend',
  new: 'archive the session: the next message starts a fresh one',
  pending: 'list the session’s approvals and questions waiting for an answer',
  help: 'list the commands',
} as const satisfies Record<string, string>;

export type SlashCommandName = keyof typeof slashCommands;

export type ParsedMessage =
  | { kind: 'text'; text: string }
  | {
      kind: 'command';
      name: SlashCommandName;
      /** What follows the command, for the one that takes it (`/goal CONDITION`). */
      argument?: string;
    };

/** Commands that take the rest of the message as their argument; it must not be empty. */
const withArgument: ReadonlySet<SlashCommandName> = new Set(['goal']);

function isCommandName(name: string): name is SlashCommandName {
  return Object.hasOwn(slashCommands, name);
}

/**
 * Reads a message as text or a command. Throws `UnknownCommandError` for a command that does not
 * exist and `InvalidInputError` for arguments to a command that takes none.
 */
export function parseMessage(text: string): ParsedMessage {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('/')) return { kind: 'text', text };
  if (trimmed.startsWith('//')) return { kind: 'text', text: trimmed.slice(1) };
  const [word = '', ...rest] = trimmed.slice(1).split(/\s+/);
  const known = Object.keys(slashCommands).map((name) => `/${name}`);
  if (!isCommandName(word))
    throw new UnknownCommandError(
      `unknown command /${word}: the commands are ${known.join(', ')} (start with // to send text that begins with /)`,
      { command: `/${word}`, known },
    );
  if (withArgument.has(word)) {
    const argument = trimmed.slice(1 + word.length).trim();
    if (argument === '')
      throw new InvalidInputError(`/${word} needs a condition (or clear)`, { command: `/${word}` });
    return { kind: 'command', name: word, argument };
  }
  if (rest.some((part) => part !== ''))
    throw new InvalidInputError(`/${word} takes no arguments`, { command: `/${word}` });
  return { kind: 'command', name: word };
}
