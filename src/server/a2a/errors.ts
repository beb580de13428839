import {
  A2A_ERROR_CODE,
  A2AError,
  type RestA2AError,
  RestRequestMalformedError,
  RestTaskNotCancelableError,
  RestUnsupportedOperationError,
  restStatusFor,
  toRestErrorBody,
} from '@a2a-js/sdk/errors';
import { AgentdError } from '../../errors/index.js';

type RestErrorKind = new (options: {
  message: string;
  statusCode: number;
  metadata?: Record<string, string>;
}) => RestA2AError;

/** How one failure is said over A2A: the protocol's error kind, its JSON-RPC code and its HTTP+JSON status. */
export interface A2aWireError {
  /** The SDK's error kind, which also names the failure in the body (ErrorInfo reason, REST status). */
  kind: RestErrorKind;
  /** The code over JSON-RPC: the kind's own code in the SDK (a test holds the two together). */
  jsonRpc: number;
  /** The status over HTTP+JSON. */
  http: number;
}

/**
 * The one place where agentd's error codes become A2A errors (and where the SDK's own errors get
 * the status the A2A spec gives them over HTTP+JSON, when the SDK's differs). A user's mistake is
 * an invalid request; a state the request does not fit is an unsupported operation; a fault of
 * the server is an internal error whose message stays in the log.
 */
export const a2aErrors: Record<string, A2aWireError> = {
  invalid_input: { kind: RestRequestMalformedError, jsonRpc: A2A_ERROR_CODE.INVALID_PARAMS, http: 400 },
  invalid_config: { kind: RestRequestMalformedError, jsonRpc: A2A_ERROR_CODE.INVALID_PARAMS, http: 400 },
  // A command that does not exist (`/foo`): the request is wrong, whatever the session.
  unknown_command: { kind: RestRequestMalformedError, jsonRpc: A2A_ERROR_CODE.INVALID_PARAMS, http: 400 },
  // An unknown role named in the message metadata, among others.
  not_found: { kind: RestRequestMalformedError, jsonRpc: A2A_ERROR_CODE.INVALID_PARAMS, http: 404 },
  // The caller may not do it here (no agent.trigger on the channel's project, no role.trigger on the
  // role it names). A2A has no error of its own for that: the parameter is what is not allowed.
  forbidden: { kind: RestRequestMalformedError, jsonRpc: A2A_ERROR_CODE.INVALID_PARAMS, http: 403 },
  // A message id used before with another text.
  conflict: { kind: RestRequestMalformedError, jsonRpc: A2A_ERROR_CODE.INVALID_PARAMS, http: 409 },
  // An archived session, a worker already running.
  invalid_state: {
    kind: RestUnsupportedOperationError,
    jsonRpc: A2A_ERROR_CODE.UNSUPPORTED_OPERATION,
    http: 409,
  },
  // The session, its role or its organization has reached its spending limit: raising the limit
  // (not changing the request) lets it go on. 402, as the HTTP API says it.
  budget_exceeded: {
    kind: RestUnsupportedOperationError,
    jsonRpc: A2A_ERROR_CODE.UNSUPPORTED_OPERATION,
    http: 402,
  },
  // The server has no model to talk to: nothing the client can fix by asking again differently.
  credentials_missing: {
    kind: RestUnsupportedOperationError,
    jsonRpc: A2A_ERROR_CODE.UNSUPPORTED_OPERATION,
    http: 503,
  },
  // A message sent with `agentd.ifBusy: reject` while its context's session is mid-turn.
  session_busy: {
    kind: RestUnsupportedOperationError,
    jsonRpc: A2A_ERROR_CODE.UNSUPPORTED_OPERATION,
    http: 409,
  },
  // The spec's HTTP+JSON status for a finished task's cancel is 409 Conflict; the SDK answers 400.
  TaskNotCancelableError: {
    kind: RestTaskNotCancelableError,
    jsonRpc: A2A_ERROR_CODE.TASK_NOT_CANCELABLE,
    http: 409,
  },
};

/**
 * What any failure is on the A2A wire: an SDK error, which every transport knows how to send. A
 * fault of the server (the store, the journal, a bug) becomes an internal error with a fixed
 * message, because its own may name files; it goes to `log` instead.
 */
export function toA2aError(error: unknown, log?: (line: string) => void): A2AError {
  if (error instanceof A2AError) {
    const wire = a2aErrors[error.name];
    if (!wire) return error;
    return new wire.kind({
      message: error.message,
      statusCode: wire.http,
      ...(error.metadata ? { metadata: error.metadata } : {}),
    });
  }
  if (error instanceof AgentdError) {
    const wire = a2aErrors[error.code] ?? (error.userError ? a2aErrors.invalid_input : undefined);
    if (wire)
      return new wire.kind({ message: error.message, statusCode: wire.http, metadata: { code: error.code } });
  }
  log?.(`A2A request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return new A2AError({
    message: 'internal server error',
    ...(error instanceof AgentdError ? { metadata: { code: error.code } } : {}),
  });
}

/** The HTTP+JSON error response of any failure. */
export function restErrorResponse(error: unknown, headers: Record<string, string>): Response {
  const a2a = toA2aError(error);
  const status = restStatusFor(a2a);
  return new Response(JSON.stringify(toRestErrorBody(a2a, status)), { status, headers });
}
