import { join } from 'node:path';
import type { RecordedRequest, ScriptTurn } from './script.js';
import { type ScriptedModel, startScriptedModel } from './scripted-model.js';

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

/** A path as one single-quoted shell word. */
function shellQuote(path: string): string {
  return `'${path.replaceAll("'", "'\\''")}'`;
}

/**
 * The demo model of offline sessions (`--offline`), documented in docs/offline-demo.md. It greets
 * and echoes what it was told. Asked to "create" something, it runs `touch` on `agentd-demo.txt`
 * in the session's directory, which waits for an approval; asked about "files", it lists that
 * directory with Bash (a read-only command: it runs at once). Then it reports what the command
 * printed. Commands name the directory in full: claude's shell may have moved elsewhere.
 */
export function demoReply(request: RecordedRequest, cwd: string): ScriptTurn {
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
  if (/\bcreate\b/i.test(said)) {
    const file = join(cwd, demoFileName);
    // Not read-only, so unless the session allows Bash it waits for a person's approval.
    return {
      content: [
        { type: 'text', text: `${hello}I will create ${file}.` },
        {
          type: 'tool_use',
          name: 'Bash',
          input: { command: `touch ${shellQuote(file)}`, description: `Create ${demoFileName}` },
        },
      ],
    };
  }
  if (/\bfiles?\b/i.test(said)) {
    return {
      content: [
        { type: 'text', text: `${hello}Let me list the files in ${cwd}.` },
        {
          type: 'tool_use',
          name: 'Bash',
          input: { command: `ls ${shellQuote(cwd)}`, description: 'List files' },
        },
      ],
    };
  }
  return { text: `${hello}You said: ${said}` };
}

/** The file the demo model creates when asked to, in the session's directory. */
export const demoFileName = 'agentd-demo.txt';

/** Starts the demo model on a free loopback port for a session working in `cwd`. */
export function startOfflineModel(options: { cwd: string }): Promise<ScriptedModel> {
  return startScriptedModel({ script: (request) => demoReply(request, options.cwd) });
}

/**
 * The environment that points `claude` at a started demo model. Other credentials in the worker's
 * environment are blanked: the demo model must never be sent a real secret.
 */
export function demoModelEnv(model: ScriptedModel): Record<string, string> {
  return {
    ANTHROPIC_AUTH_TOKEN: '',
    CLAUDE_CODE_OAUTH_TOKEN: '',
    CLAUDE_CODE_USE_BEDROCK: '',
    CLAUDE_CODE_USE_VERTEX: '',
    ...model.env(),
  };
}

/**
 * For an offline session (provider `offline`), starts the demo model that its worker talks to, with
 * the environment that points `claude` at it; null for any other session. The worker owns it: the
 * model lives exactly as long as the worker.
 */
export async function startDemoModelFor(session: {
  provider: string;
  cwd: string;
}): Promise<{ env: Record<string, string>; close(): Promise<void> } | null> {
  if (session.provider !== 'offline') return null;
  const model = await startOfflineModel({ cwd: session.cwd });
  return { env: demoModelEnv(model), close: () => model.close() };
}
