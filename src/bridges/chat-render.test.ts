import { describe, expect, it } from 'vitest';
import { UnknownCommandError } from '../errors/index.js';
import { parseActionData, renderError, renderReply } from './chat-render.js';

describe('chat rendering', () => {
  it('button data round-trips to the interaction it answers; anything else is not agentd’s', () => {
    expect(parseActionData('ok:abc')).toEqual({ kind: 'approve', interactionId: 'abc' });
    expect(parseActionData('no:abc')).toEqual({ kind: 'deny', interactionId: 'abc' });
    expect(parseActionData('q:abc:2')).toEqual({ kind: 'option', interactionId: 'abc', option: 2 });
    for (const data of ['ok', 'yes:abc', 'q:abc', 'q:abc:x', ''])
      expect(parseActionData(data), data).toBeNull();
  });

  it('a reply shows text, the running tool while working, then status and cost', () => {
    expect(renderReply({ text: 'hi', tool: 'Bash: ls', status: 'working', costUsd: null }).text).toBe(
      'hi\n\n🔧 Bash: ls\n… working',
    );
    expect(renderReply({ text: 'hi', tool: 'Bash: ls', status: 'done', costUsd: 0.01 }).text).toBe(
      'hi\n\n✓ done · $0.0100',
    );
    const long = renderReply({ text: 'x'.repeat(10_000), tool: null, status: 'done', costUsd: null }).text;
    expect(long.length).toBeLessThan(4096);
  });

  it('a user mistake shows its code and message; a system fault only its code', () => {
    expect(renderError(new UnknownCommandError('unknown command /x')).text).toBe(
      '⚠ unknown_command: unknown command /x',
    );
    expect(renderError(new Error('secret detail')).text).toBe('⚠ internal_error');
  });
});
