import { describe, expect, it } from 'vitest';
import { parseCard } from '../testing/fake-feishu.js';
import { cardOf, textOfMessage } from './feishu-card.js';

describe('feishu cards', () => {
  it('cardOf: a shared card, the text as plain text (never markup), a row of buttons carrying the action data', () => {
    const content = cardOf({
      text: '**not bold** <at id=all></at>',
      buttons: [
        [
          { label: 'Approve', data: 'ok:i1' },
          { label: 'Deny', data: 'no:i1' },
        ],
      ],
    });
    const card = parseCard(content);
    expect(card.shared).toBe(true);
    expect(card.text).toBe('**not bold** <at id=all></at>');
    expect((card.raw.elements as Array<{ text?: { tag?: string } }>)[0]?.text?.tag).toBe('plain_text');
    expect(card.buttons).toEqual([
      { label: 'Approve', value: { agentd: 'ok:i1' } },
      { label: 'Deny', value: { agentd: 'no:i1' } },
    ]);
    expect(parseCard(cardOf({ text: 'answered', buttons: [] })).buttons).toEqual([]);
  });

  it('textOfMessage: the text without mention keys; content that is not a text message is null', () => {
    expect(textOfMessage(JSON.stringify({ text: '@_user_1 /status' }), ['@_user_1'])).toBe('/status');
    expect(textOfMessage(JSON.stringify({ text: 'hi @_user_2 there' }), ['@_user_2'])).toBe('hi  there');
    expect(textOfMessage('{"image_key":"img"}', [])).toBeNull();
    expect(textOfMessage('not json', [])).toBeNull();
  });
});
