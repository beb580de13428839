import { AgentdError, StoreError } from '../../errors/agentd-error.js';

/** SQLSTATE classes and codes that mean "the database is not there right now", not "the request is wrong". */
const unavailableStates = new Set(['57P01', '57P02', '57P03', '53300', '53400']);
/** Node socket errors of a server that is down, restarting or unreachable. */
const unavailableSocketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** SQLSTATEs after which the whole transaction may simply be run again. */
export const retryableStates = new Set(['40001', '40P01']);

/** The SQLSTATE (or socket code) of a pg failure, if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return undefined;
}

/** True when `error` says the server could not be reached or dropped the connection. */
export function isUnavailable(error: unknown): boolean {
  const code = errorCode(error);
  if (
    code !== undefined &&
    (code.startsWith('08') || unavailableStates.has(code) || unavailableSocketCodes.has(code))
  ) {
    return true;
  }
  // pg raises these as plain Errors without a code (lib/client.js, pg-pool): the message is all there is.
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    message,
  );
}

/** Translates a pg failure into a `StoreError`, keeping the original as `cause`. */
export function toStoreError(error: unknown, description: string): AgentdError {
  if (error instanceof AgentdError) {
    return error;
  }
  const message = error instanceof Error ? error.message || String(errorCode(error) ?? error) : String(error);
  if (isUnavailable(error)) {
    return new StoreError({
      code: 'store_unavailable',
      message: `the agentd database ${description} is unreachable: ${message}`,
      cause: error,
    });
  }
  const code = errorCode(error);
  if (code !== undefined && retryableStates.has(code)) {
    return new StoreError({
      code: 'store_busy',
      message: `the agentd database ${description} kept aborting a transaction under contention: ${message}`,
      cause: error,
    });
  }
  return new StoreError({ message: `the agentd database ${description} failed: ${message}`, cause: error });
}
