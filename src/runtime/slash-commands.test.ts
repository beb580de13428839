import { describe, expect, it } from 'vitest';
import { InvalidInputError, UnknownCommandError } from '../errors/index.js';
import { parseMessage } from './slash-commands.js';

describe('parseMessage', () => {
  it('text without a leading slash is text, unchanged', () => {
    expect(parseMessage('fix the /tmp path')).toEqual({ kind: 'text', text: 'fix the /tmp path' });
  });

  it('each known command is a typed command', () => {
    for (const name of ['compact', 'stop', 'status', 'new', 'pending', 'help'])
      expect(parseMessage(`/${name}`)).toEqual({ kind: 'command', name });
    expect(parseMessage('  /compact  ')).toEqual({ kind: 'command', name: 'compact' });
  });

  it('an unknown command is refused with unknown_command, never passed on as text', () => {
    for (const text of ['/compactt', '/Compact', '/clear', '/', '/model opus']) {
      const error = (() => {
        try {
          parseMessage(text);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error, text).toBeInstanceOf(UnknownCommandError);
      expect((error as UnknownCommandError).code).toBe('unknown_command');
    }
  });

  it('arguments to a command that takes none are invalid_input', () => {
    expect(() => parseMessage('/stop now')).toThrow(InvalidInputError);
  });

  it('/goal takes the rest of the message as its condition, and needs one', () => {
    expect(parseMessage('/goal  the tests pass ')).toEqual({
      kind: 'command',
      name: 'goal',
      argument: 'the tests pass',
    });
    expect(() => parseMessage('/goal')).toThrow(InvalidInputError);
  });

  it('a double slash sends the rest as text starting with one slash', () => {
    expect(parseMessage('//compact is a command')).toEqual({ kind: 'text', text: '/compact is a command' });
  });

  it('does not treat a toString-like name as a command', () => {
    expect(() => parseMessage('/toString')).toThrow(UnknownCommandError);
    expect(() => parseMessage('/constructor')).toThrow(UnknownCommandError);
  });
});
