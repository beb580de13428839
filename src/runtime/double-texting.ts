import type { BackendName } from '../backends/agent-backend.js';
import { InvalidInputError, SessionBusyError } from '../errors/index.js';
import type { ExecutionRecord, InputRecord, SessionRecord, Store } from '../store/store.js';

/**
 * What a message does when its session is mid-turn (double texting): wait for the turn
 * (`enqueue`), be refused (`reject`), interrupt the turn (`interrupt`), or interrupt it and take
 * it back, so that the agent never sees it (`rollback`).
 */
export const ifBusyStrategies = ['enqueue', 'reject', 'interrupt', 'rollback'] as const;
export type IfBusy = (typeof ifBusyStrategies)[number];

/** A strategy given by a client: one of `ifBusyStrategies`, else `invalid_input`. */
export function parseIfBusy(value: unknown, field = 'ifBusy'): IfBusy | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && (ifBusyStrategies as readonly string[]).includes(value))
    return value as IfBusy;
  throw new InvalidInputError(`${field} must be one of ${ifBusyStrategies.join(', ')}`, {
    field,
    value: typeof value === 'string' ? value : String(value),
  });
}

/** The session's own default (`createSession({ ifBusy })`), else `enqueue`. */
export function sessionIfBusy(session: SessionRecord): IfBusy {
  return parseIfBusy(session.config.ifBusy) ?? 'enqueue';
}

/** What a new message finds: the input whose turn runs now, and the inputs waiting before it. */
export interface BusyState {
  turn: InputRecord | null;
  waiting: number;
}

/**
 * Whether the session is mid-turn: its live worker is `running` a turn (the last input it took),
 * or inputs already wait for it. Null when it is free.
 */
export async function busyState(
  store: Store,
  sessionId: string,
  live: ExecutionRecord | null,
): Promise<BusyState | null> {
  if (!live) return null;
  const inputs = await store.listInputs(sessionId);
  const waiting = inputs.filter((input) => input.state === 'accepted').length;
  const turn =
    live.state === 'running'
      ? (inputs
          .filter(
            (input) =>
              input.executionId === live.id && (input.state === 'dispatching' || input.state === 'delivered'),
          )
          .at(-1) ?? null)
      : null;
  return turn || waiting > 0 ? { turn, waiting } : null;
}

export function busyError(sessionId: string, busy: BusyState): SessionBusyError {
  return new SessionBusyError(
    `session ${sessionId} is busy (${busy.turn ? 'a turn is running' : `${busy.waiting} input(s) waiting`}); nothing was sent: send again later, or with ifBusy enqueue, interrupt or rollback`,
    { sessionId, ...(busy.turn ? { inputId: busy.turn.id } : {}), waiting: busy.waiting },
  );
}

/** `rollback` cuts the native session before a turn: a backend that cannot (Codex) refuses it. */
export function requireRollbackSupported(backend: BackendName, ifBusy: IfBusy | undefined): void {
  if (ifBusy !== 'rollback' || backend === 'claude') return;
  throw new InvalidInputError(
    `ifBusy rollback needs a backend that can resume before a turn; ${backend} cannot: use interrupt`,
    { field: 'ifBusy', value: ifBusy, backend },
  );
}
