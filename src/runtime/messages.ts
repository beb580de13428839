import type { ExecutionRecord, InputRecord, InteractionRecord, SessionRecord } from '../store/store.js';
import { archiveSession } from './archive.js';
import type { ReachedLimit } from './budgets.js';
import type { IfBusy } from './double-texting.js';
import type { Runtime } from './runtime.js';
import { parseMessage, type SlashCommandName, slashCommands } from './slash-commands.js';

/** What a session's state looks like to `/status`. */
export interface SessionStatus {
  session: SessionRecord;
  live: ExecutionRecord | null;
  /** Inputs journaled but not yet given to the agent (waiting for a worker or a budget). */
  waitingInputs: number;
  pendingInteractions: number;
  costUsd: number;
  /** The limit the session has reached, if any: its inputs wait. */
  budget: ReachedLimit | null;
}

export type CommandResult =
  | { command: 'compact'; input: InputRecord }
  | { command: 'goal'; input: InputRecord }
  | { command: 'stop'; execution: ExecutionRecord | null }
  | { command: 'status'; status: SessionStatus | null }
  | { command: 'new'; archived: SessionRecord | null }
  | { command: 'pending'; interactions: InteractionRecord[] }
  | { command: 'help'; commands: Array<{ name: string; description: string }> };

/** A message's outcome: text became an input; a command ran (`/compact` as an input of its own). */
export type MessageResult =
  | { kind: 'input'; session: SessionRecord; input: InputRecord }
  | ({ kind: 'command'; session: SessionRecord | null } & CommandResult);

export interface MessageOptions {
  text: string;
  /** The client's message id; the same id and text is the same input. @default a new UUID */
  messageId?: string;
  traceparent?: string;
  /** What the text does if the session is mid-turn (see `SendOptions.ifBusy`). */
  ifBusy?: IfBusy;
}

/**
 * The closed command protocol, for one session (a channel finds its session first): text goes to
 * the agent as an input, a known command runs here, an unknown one is refused (`unknown_command`)
 * and never reaches the agent. `/compact` is the one command the agent receives, sent exactly.
 */
export async function handleMessage(
  runtime: Runtime,
  session: SessionRecord | null,
  options: MessageOptions & {
    /** Finds or makes the session a command or text needs when there is none (a channel's). */
    ensureSession?: () => Promise<SessionRecord>;
  },
): Promise<MessageResult> {
  const parsed = parseMessage(options.text);
  const messageId = options.messageId;
  const sendOptions = (text: string, command: boolean) => ({
    text,
    command,
    ...(messageId !== undefined ? { messageId } : {}),
    ...(options.traceparent ? { traceparent: options.traceparent } : {}),
    ...(options.ifBusy ? { ifBusy: options.ifBusy } : {}),
  });
  if (parsed.kind === 'text') {
    const target = session ?? (await options.ensureSession?.());
    if (!target) throw new Error('handleMessage: a text message needs a session');
    const input = await runtime.journalAndDispatch(target.id, sendOptions(parsed.text, false));
    return { kind: 'input', session: target, input };
  }
  return { kind: 'command', ...(await runCommand(runtime, parsed, session, options, sendOptions)) };
}

async function runCommand(
  runtime: Runtime,
  { name, argument }: { name: SlashCommandName; argument?: string },
  session: SessionRecord | null,
  options: { ensureSession?: () => Promise<SessionRecord> },
  sendOptions: (
    text: string,
    command: boolean,
  ) => { text: string; command: boolean; messageId?: string; ifBusy?: IfBusy },
): Promise<{ session: SessionRecord | null } & CommandResult> {
  switch (name) {
    case 'help':
      return {
        command: 'help',
        session,
        commands: Object.entries(slashCommands).map(([command, description]) => ({
          name: `/${command}`,
          description,
        })),
      };
    case 'compact': {
      // Resumes the session (a worker starts if none is live) and sends exactly `/compact`.
      const target = session ?? (await options.ensureSession?.());
      if (!target) throw new Error('handleMessage: /compact needs a session');
      const input = await runtime.journalAndDispatch(target.id, sendOptions('/compact', true));
      return { command: 'compact', session: target, input };
    }
    case 'goal': {
      // Claude's own /goal, sent exactly like /compact: claude keeps the goal, agentd journals it.
      const target = session ?? (await options.ensureSession?.());
      if (!target) throw new Error('handleMessage: /goal needs a session');
      const input = await runtime.journalAndDispatch(target.id, sendOptions(`/goal ${argument ?? ''}`, true));
      return { command: 'goal', session: target, input };
    }
    case 'stop':
      return { command: 'stop', session, execution: session ? await runtime.stop(session.id) : null };
    case 'status':
      return { command: 'status', session, status: session ? await runtime.status(session.id) : null };
    case 'pending':
      return {
        command: 'pending',
        session,
        interactions: session ? await runtime.interactions({ sessionId: session.id, state: 'pending' }) : [],
      };
    case 'new': {
      const archived = session ? await archiveSession(runtime.store, session, 'new') : null;
      return { command: 'new', session: archived, archived };
    }
  }
}
