import { InvalidInputError } from '../../errors/index.js';
import { parseMessage } from '../../runtime/slash-commands.js';

/**
 * The command protocol over A2A, and the input text a message's text becomes: a message is text
 * for the agent, or `/compact` (sent to the agent as the command); `//text` is the text `/text`. Other commands answer at once rather than with a
 * turn, which an A2A task (a view of a turn in the journal) cannot carry, so they are refused:
 * `unknown_command` for one that does not exist, `invalid_input` for the others (use the CLI or
 * the HTTP API). Nothing is sent or changed when a message is refused.
 */
export function a2aInputText(text: string): string {
  const parsed = parseMessage(text);
  if (parsed.kind === 'text') return parsed.text;
  if (parsed.name !== 'compact')
    throw new InvalidInputError(
      `/${parsed.name} is not available over A2A: a message is text or /compact (start with // to send text that begins with /)`,
      { command: `/${parsed.name}` },
    );
  return '/compact';
}
