import type { RecordedRequest, ScriptTurn } from '../testing/script.js';
import { type ScriptedModel, startScriptedModel } from '../testing/scripted-model.js';

type Block = { type?: string; text?: string; content?: unknown; is_error?: boolean };

function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as Block[]) : [];
}

function textOf(content: unknown): string {
  return blocksOf(content)
    .map((block) => (block.type === 'text' ? (block.text ?? '') : textOf(block.content)))
    .join('\n');
}

/** What the person last typed: the last user message's text, without claude's own reminders. */
export function lastUserText(request: RecordedRequest): string {
  const messages = request.body?.messages ?? [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role !== 'user') continue;
    const text = blocksOf(message.content)
      .filter(
        (block) => block.type === 'text' && !(block.text ?? '').trimStart().startsWith('<system-reminder>'),
      )
      .map((block) => block.text ?? '')
      .join('\n')
      .trim();
    if (text) return text;
  }
  return '';
}

const greeting =
  "Hello! I'm agentd's offline demo model: I answer from a script, with no credentials and no network. ";

/**
 * The demo model of `agentd serve --offline`: it greets, echoes what it was told, and when asked
 * about files it lists them with Bash (a read-only command: it runs at once); asked to create
 * something, it runs `touch agentd-demo.txt`, which waits for an approval. Then it reports what the
 * command printed.
 */
export function demoReply(request: RecordedRequest): ScriptTurn {
  const messages = request.body?.messages ?? [];
  const last = messages.at(-1);
  const results =
    last?.role === 'user' ? blocksOf(last.content).filter((block) => block.type === 'tool_result') : [];
  if (results.length > 0) {
    const output = results
      .map((block) => textOf(block.content))
      .join('\n')
      .trim();
    if (results.some((block) => block.is_error === true))
      return { text: `The command did not run: ${output || 'no reason given'}` };
    return {
      text: output ? `Here is what the command printed:\n${output}` : 'Done: the command printed nothing.',
    };
  }
  const said = lastUserText(request);
  const hello = messages.some((message) => message.role === 'assistant') ? '' : greeting;
  if (/\bfiles?\b/i.test(said)) {
    return {
      content: [
        { type: 'text', text: `${hello}Let me list the files in the working directory.` },
        { type: 'tool_use', name: 'Bash', input: { command: 'ls', description: 'List files' } },
      ],
    };
  }
  if (/\bcreate\b/i.test(said)) {
    // Not read-only, so unless the session allows Bash it waits for a person's approval.
    return {
      content: [
        { type: 'text', text: `${hello}I will create agentd-demo.txt in the working directory.` },
        {
          type: 'tool_use',
          name: 'Bash',
          input: { command: 'touch agentd-demo.txt', description: 'Create agentd-demo.txt' },
        },
      ],
    };
  }
  return { text: `${hello}You said: ${said}` };
}

/** Starts the scripted model on a free loopback port with the demo script. */
export function startOfflineModel(): Promise<ScriptedModel> {
  return startScriptedModel({ script: demoReply });
}
