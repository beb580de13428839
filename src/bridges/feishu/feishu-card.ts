import type { OutgoingMessage } from '../chat-adapter.js';

/**
 * A message as a Feishu interactive card: its text as plain text (so nothing an agent writes is
 * read as markup), a row of buttons per button row, each carrying agentd's action data in its
 * `value`. `update_multi` makes the card shared, the only kind Feishu lets a bot patch for
 * everyone in the chat.
 */
export function cardOf(message: OutgoingMessage): string {
  const elements: Array<Record<string, unknown>> = [
    { tag: 'div', text: { tag: 'plain_text', content: message.text } },
  ];
  for (const row of message.buttons ?? [])
    if (row.length > 0)
      elements.push({
        tag: 'action',
        actions: row.map((button, index) => ({
          tag: 'button',
          text: { tag: 'plain_text', content: button.label },
          type: index === 0 ? 'primary' : 'default',
          value: { agentd: button.data },
        })),
      });
  return JSON.stringify({ config: { wide_screen_mode: true, update_multi: true }, elements });
}

/** The text a user wrote, without the `@_user_N` keys Feishu puts where someone was mentioned. */
export function textOfMessage(content: string, mentionKeys: readonly string[]): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return null;
  }
  const text = (parsed as { text?: unknown } | null)?.text;
  if (typeof text !== 'string') return null;
  let plain = text;
  for (const key of mentionKeys) plain = plain.split(key).join('');
  return plain.replace(/^\s+/, '').trimEnd();
}
