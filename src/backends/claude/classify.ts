import type { AgentErrorInfo, ErrorCode } from '../agent-event.js';

const transientCodes: ReadonlySet<ErrorCode> = new Set([
  'rate_limit',
  'overloaded',
  'server_error',
  'timeout',
  'network',
]);

export function isTransient(code: ErrorCode): boolean {
  return transientCodes.has(code);
}

function info(code: ErrorCode, message: string, status?: number): AgentErrorInfo {
  return status === undefined
    ? { code, message, transient: isTransient(code) }
    : { code, message, transient: isTransient(code), status };
}

/** An HTTP status from the Messages API, read the way Anthropic documents it. */
export function classifyStatus(status: number, message = ''): ErrorCode {
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission';
  if (status === 429) return 'rate_limit';
  if (status === 529) return 'overloaded';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 413 || /prompt is too long|context (window|length)|too many tokens/i.test(message)) {
    return 'context_overflow';
  }
  if (status >= 500) return 'server_error';
  if (status >= 400) return 'invalid_request';
  return 'unknown';
}

/** The error kind `claude` puts on an assistant message or an `api_retry` notice. */
export function classifyAssistantError(error: string): ErrorCode {
  switch (error) {
    case 'authentication_failed':
    case 'oauth_org_not_allowed':
    case 'cloud_credential_error':
      return 'authentication';
    case 'account_on_hold':
    case 'verification_required':
    case 'billing_error':
      return 'permission';
    case 'rate_limit':
      return 'rate_limit';
    case 'overloaded':
      return 'overloaded';
    case 'server_error':
      return 'server_error';
    case 'invalid_request':
    case 'model_not_found':
      return 'invalid_request';
    case 'max_output_tokens':
      return 'context_overflow';
    default:
      return 'unknown';
  }
}

interface ResultLike {
  subtype: string;
  is_error?: boolean;
  result?: string;
  errors?: string[];
  api_error_status?: number | null;
  terminal_reason?: string;
}

/** The classification of a failed turn result, or null when the turn succeeded. */
export function classifyResult(result: ResultLike): AgentErrorInfo | null {
  const message = result.result ?? result.errors?.join('; ') ?? result.subtype;
  switch (result.subtype) {
    case 'error_max_turns':
      return info('max_turns', message || 'the turn reached its maximum number of turns');
    case 'error_max_budget_usd':
      return info('budget_exceeded', message || 'the turn reached its maximum budget');
  }
  if (result.is_error !== true && result.subtype === 'success') return null;
  switch (result.terminal_reason) {
    case 'prompt_too_long':
    case 'blocking_limit':
      return info('context_overflow', message, result.api_error_status ?? undefined);
    case 'max_turns':
      return info('max_turns', message);
    case 'budget_exhausted':
      return info('budget_exceeded', message);
    case 'aborted_streaming':
    case 'aborted_tools':
      return info('cancelled', message || 'the turn was interrupted');
  }
  if (typeof result.api_error_status === 'number') {
    return info(classifyStatus(result.api_error_status, message), message, result.api_error_status);
  }
  return info(classifyMessage(message), message);
}

function classifyMessage(message: string): ErrorCode {
  if (/\b401\b|authenticat|invalid (x-)?api[- ]key|unauthori[sz]ed/i.test(message)) return 'authentication';
  if (/\b403\b|permission denied|forbidden/i.test(message)) return 'permission';
  if (/\b429\b|rate.?limit/i.test(message)) return 'rate_limit';
  if (/\b529\b|overloaded/i.test(message)) return 'overloaded';
  if (/prompt is too long|context (window|length)/i.test(message)) return 'context_overflow';
  if (/timed? ?out|timeout/i.test(message)) return 'timeout';
  if (
    /ECONNRESET|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EPIPE|socket hang up|network|fetch failed/i.test(message)
  ) {
    return 'network';
  }
  if (/\b5\d\d\b|internal server error|api_error/i.test(message)) return 'server_error';
  if (/max(imum)? turns/i.test(message)) return 'max_turns';
  if (/budget/i.test(message)) return 'budget_exceeded';
  if (/abort|interrupt|cancel/i.test(message)) return 'cancelled';
  return 'unknown';
}

/** Any thrown value: SDK errors, process failures, aborts. */
export function classifyError(error: unknown): AgentErrorInfo {
  if (error instanceof Error) {
    if (error.name === 'AbortError') return info('cancelled', error.message || 'aborted');
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number') return info(classifyStatus(status, error.message), error.message, status);
    const code = (error as { code?: unknown }).code;
    const text = typeof code === 'string' ? `${code} ${error.message}` : error.message;
    return info(classifyMessage(text), error.message);
  }
  return info(classifyMessage(String(error)), String(error));
}

export function errorInfo(code: ErrorCode, message: string, status?: number): AgentErrorInfo {
  return info(code, message, status);
}
