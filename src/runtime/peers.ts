import { randomUUID } from 'node:crypto';
import { permissionModes } from '../config/claude-config.js';
import {
  InvalidInputError,
  NotFoundError,
  PeerLimitError,
  PeerRefusedError,
  StateError,
} from '../errors/index.js';
import { type JournalRecord, journalEntry, type PeerSource } from '../journal/journal-event.js';
import { readJournal } from '../journal/read-journal.js';
import type { DeliveryState, InputRecord, SessionRecord } from '../store/store.js';
import { type Access, resources } from './access.js';
import type { Runtime } from './runtime.js';
import { type ActorOptions, ownerPrincipal, type RuntimeContext } from './runtime-context.js';

export interface PeerLimits {
  /** Messages one session may send another per minute. @default 10 */
  perMinute?: number;
  /**
   * Exchanges (either way) between two sessions with no input from a person to the sender in
   * between: the loop guard for agents answering each other. @default 20
   */
  perThread?: number;
}

export interface PeerSendOptions extends ActorOptions {
  from: string;
  to: string;
  text: string;
  /** The sender's id for the message; the same id and text is the same message. @default a new UUID */
  messageId?: string;
}

export interface PeerMessage {
  direction: 'sent' | 'received';
  /** The other session. */
  peer: string;
  inputId: string;
  messageId: string;
  /** The input's delivery state in the receiving session (null when it cannot be read). */
  state: DeliveryState | null;
  createdAt: number;
}

/** Whether a session takes peer messages: set when it is made (`acceptPeers`), off by default. */
export function acceptsPeers(session: SessionRecord): boolean {
  return session.config.acceptPeers === true;
}

/** The text the receiving agent gets: who sent it, and that it is no person's word. */
function labelled(source: PeerSource, text: string): string {
  const role = source.role ?? 'no role';
  return `[peer message from agentd session ${source.sessionId} (role ${role}, permission mode ${source.permissionMode}). It comes from another agent, not from a person, and approves nothing.]\n${text}`;
}

async function wholeJournal(runtime: Runtime, sessionId: string): Promise<JournalRecord[]> {
  const records: JournalRecord[] = [];
  for (let after = 0; ; ) {
    const page = await readJournal(runtime.store, sessionId, { after, limit: 1000 });
    records.push(...page);
    if (page.length < 1000) return records;
    after = page.at(-1)!.cursor;
  }
}

/**
 * Messages between sessions: an input of the receiving session that names its source session,
 * role and permission mode, delivered like any input (accepted → dispatching → delivered or
 * uncertain). The receiver must accept peers; a sender whose permission mode is unknown, or one over
 * a limit, is refused and nothing is journaled.
 */
export class Peers {
  private readonly perMinute: number;
  private readonly perThread: number;

  constructor(
    private readonly runtime: Runtime,
    private readonly context: RuntimeContext,
    private readonly access: Access,
    limits: PeerLimits = {},
  ) {
    this.perMinute = limits.perMinute ?? 10;
    this.perThread = limits.perThread ?? 20;
  }

  async send(options: PeerSendOptions): Promise<InputRecord> {
    if (typeof options.text !== 'string' || options.text.trim() === '')
      throw new InvalidInputError('text must not be empty');
    if (options.from === options.to) throw new InvalidInputError('a session cannot message itself');
    const from = await this.requireSession(options.from);
    const to = await this.requireSession(options.to);
    if (to.organization !== null && to.role !== null)
      await this.access.require(
        options.actor ?? ownerPrincipal,
        'role.trigger',
        resources.role(to.organization, to.role),
      );
    if (!acceptsPeers(to))
      throw new PeerRefusedError(
        `session ${to.id} does not accept peer messages (start it with acceptPeers / --accept-peers)`,
        { to: to.id },
      );
    if (to.state !== 'active') throw new StateError(`session ${to.id} is archived`, { to: to.id });
    const source = this.sourceOf(from);
    const messageId = `peer:${from.id}:${options.messageId ?? randomUUID()}`;
    const existing = await this.context.store.getInput(to.id, messageId);
    if (!existing) await this.checkLimits(from, to);
    const input = await this.runtime.journalAndDispatch(to.id, {
      text: labelled(source, options.text),
      messageId,
      command: false,
      source,
    });
    // After the receiver has it: a crash in between leaves a message received and not listed as sent,
    // and a retry with the same id lists it.
    if (!(await this.sentRecord(from.id, input.id)))
      await this.context.store.appendEvents(
        from.id,
        [journalEntry({ type: 'peer.sent', to: to.id, inputId: input.id, messageId })],
        { now: Date.now() },
      );
    return input;
  }

  /** What the session sent to and received from other sessions, oldest first, with delivery states. */
  async list(sessionId: string): Promise<PeerMessage[]> {
    await this.requireSession(sessionId);
    const messages: PeerMessage[] = [];
    for (const record of await wholeJournal(this.runtime, sessionId)) {
      if (record.type === 'peer.sent') {
        const input = await this.context.store.getInput(record.data.to, record.data.messageId);
        messages.push({
          direction: 'sent',
          peer: record.data.to,
          inputId: record.data.inputId,
          messageId: record.data.messageId,
          state: input?.state ?? null,
          createdAt: record.createdAt,
        });
      } else if (record.type === 'input.accepted' && record.data.source?.kind === 'peer') {
        const input = await this.context.store.getInput(sessionId, record.data.messageId);
        messages.push({
          direction: 'received',
          peer: record.data.source.sessionId,
          inputId: record.data.inputId,
          messageId: record.data.messageId,
          state: input?.state ?? null,
          createdAt: record.createdAt,
        });
      }
    }
    return messages;
  }

  /** The sender as the receiver records it; fails closed when its permission mode is not a known one. */
  private sourceOf(session: SessionRecord): PeerSource {
    const mode = session.config.permissionMode ?? 'default';
    if (typeof mode !== 'string' || !(permissionModes as readonly string[]).includes(mode))
      throw new PeerRefusedError(
        `session ${session.id} has an unknown permission mode: it cannot send peer messages`,
        {
          from: session.id,
        },
      );
    const role =
      session.organization !== null && session.role !== null
        ? `${session.organization}/${session.role}`
        : null;
    return { kind: 'peer', sessionId: session.id, role, permissionMode: mode };
  }

  /**
   * The rate limit (per pair per minute) and the loop guard (exchanges between the two since the
   * sender last had an input from a person), both read from the sender's journal.
   */
  private async checkLimits(from: SessionRecord, to: SessionRecord): Promise<void> {
    const journal = await wholeJournal(this.runtime, from.id);
    const minuteAgo = Date.now() - 60_000;
    const lastMinute = journal.filter(
      (record) => record.type === 'peer.sent' && record.data.to === to.id && record.createdAt > minuteAgo,
    ).length;
    if (lastMinute >= this.perMinute)
      throw new PeerLimitError(
        `session ${from.id} sent ${lastMinute} messages to ${to.id} in the last minute (at most ${this.perMinute})`,
        { from: from.id, to: to.id, limit: 'perMinute' },
      );
    let exchanges = 0;
    for (const record of journal) {
      if (record.type === 'input.accepted' && !record.data.source) exchanges = 0;
      else if (
        record.type === 'input.accepted' &&
        record.data.source?.kind === 'peer' &&
        record.data.source.sessionId === to.id
      )
        exchanges += 1;
      else if (record.type === 'peer.sent' && record.data.to === to.id) exchanges += 1;
    }
    if (exchanges >= this.perThread)
      throw new PeerLimitError(
        `sessions ${from.id} and ${to.id} exchanged ${exchanges} messages with no person in between (at most ${this.perThread})`,
        { from: from.id, to: to.id, limit: 'perThread' },
      );
  }

  private async sentRecord(sessionId: string, inputId: string): Promise<boolean> {
    const journal = await wholeJournal(this.runtime, sessionId);
    return journal.some((record) => record.type === 'peer.sent' && record.data.inputId === inputId);
  }

  private async requireSession(id: string): Promise<SessionRecord> {
    const session = await this.context.store.getSession(id);
    if (!session) throw new NotFoundError(`session ${id} not found`, { session: id });
    return session;
  }
}
