import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AgentdError } from '../../errors/index.js';

/** A failure of the request itself, detected by the HTTP layer (auth, size, JSON syntax, route). */
export class HttpRequestError extends AgentdError {
  constructor(options: { code: string; message: string; details?: Record<string, unknown> }) {
    super({ ...options, userError: true });
  }
}

/**
 * The one place where agentd's error codes become HTTP statuses. Anything not listed is a fault of
 * the server: 500 with code `internal`, and its message and stack stay in the log.
 */
const statusByCode: Record<string, ContentfulStatusCode> = {
  invalid_input: 400,
  invalid_config: 400,
  invalid_json: 400,
  unknown_command: 400,
  unauthorized: 401,
  budget_exceeded: 402,
  forbidden: 403,
  peer_refused: 403,
  peer_limit: 429,
  monitor_failed: 500,
  not_found: 404,
  conflict: 409,
  invalid_state: 409,
  session_busy: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  credentials_missing: 503,
  // The database is down or too busy: the request may succeed when retried.
  store_unavailable: 503,
  store_busy: 503,
  // Skills refused on upload (nothing is stored), and a stored blob that no longer matches its digest.
  skill_invalid: 400,
  skill_unsafe_path: 400,
  skill_link: 400,
  skill_special_file: 400,
  skill_too_many_files: 400,
  skill_archive_invalid: 400,
  skill_too_large: 413,
  skill_corrupt: 500,
};

/** The JSON body of every error response. */
export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

export function statusOf(code: string): ContentfulStatusCode {
  return statusByCode[code] ?? 500;
}

function codeOfStatus(status: number): string {
  const known = Object.entries(statusByCode).find(([, candidate]) => candidate === status);
  return known?.[0] ?? (status >= 500 ? 'internal' : 'invalid_input');
}

/** The wire form of an error: stable code, a message for people, never a stack trace. */
export function toErrorResponse(error: unknown): { status: ContentfulStatusCode; body: ErrorBody } {
  // A user's mistake with a code not listed yet is still the user's: 400 with its own code, not a 500.
  if (error instanceof AgentdError && (statusByCode[error.code] !== undefined || error.userError)) {
    const body: ErrorBody = { error: { code: error.code, message: error.message } };
    if (error.details !== undefined) body.error.details = error.details;
    return { status: statusByCode[error.code] ?? 400, body };
  }
  if (error instanceof HTTPException && error.status < 500) {
    return {
      status: error.status as ContentfulStatusCode,
      body: { error: { code: codeOfStatus(error.status), message: error.message || 'bad request' } },
    };
  }
  return { status: 500, body: { error: { code: 'internal', message: 'internal server error' } } };
}

export function errorJson(context: Context, error: unknown): Response {
  const { status, body } = toErrorResponse(error);
  return context.json(body, status);
}

export const unauthorized = (message: string) => new HttpRequestError({ code: 'unauthorized', message });

export const payloadTooLarge = (limitBytes: number) =>
  new HttpRequestError({
    code: 'payload_too_large',
    message: `request body is larger than ${limitBytes} bytes`,
    details: { limitBytes },
  });

export const unsupportedMediaType = (message: string, accepted: readonly string[]) =>
  new HttpRequestError({ code: 'unsupported_media_type', message, details: { accepted: [...accepted] } });

export const routeNotFound = (method: string, path: string) =>
  new HttpRequestError({ code: 'not_found', message: `no route for ${method} ${path}` });
