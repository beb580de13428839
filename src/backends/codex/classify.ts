import type { AgentErrorInfo, ErrorCode } from '../agent-event.js';
import { classifyError, classifyStatus, errorInfo } from '../claude/classify.js';
import type { TurnError } from './protocol.js';

/** `Reconnecting... 2/5`: codex retrying one request on its own. */
const reconnecting = /^Reconnecting\.\.\.\s*(\d+)\/(\d+)/;
const statusPattern = /\bstatus:? (\d{3})\b/;

/** Codex's own error kinds that say more than a status would. */
const infoCodes: Record<string, ErrorCode> = {
  contextWindowExceeded: 'context_overflow',
  usageLimitExceeded: 'rate_limit',
  rateLimitExceeded: 'rate_limit',
  serverOverloaded: 'overloaded',
  internalServerError: 'server_error',
  unauthorized: 'authentication',
  badRequest: 'invalid_request',
  sessionBudgetExceeded: 'budget_exceeded',
};

/** The HTTP status codex reports with an error (`{ httpConnectionFailed: { httpStatusCode } }` …). */
function statusOf(error: TurnError): number | undefined {
  const info = error.codexErrorInfo;
  if (info && typeof info === 'object') {
    for (const detail of Object.values(info as Record<string, unknown>)) {
      const status = (detail as { httpStatusCode?: unknown } | null)?.httpStatusCode;
      if (typeof status === 'number') return status;
    }
  }
  const text = `${error.message} ${error.additionalDetails ?? ''}`;
  const match = statusPattern.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** An error codex reports (an `error` notification, a failed turn), classified. */
export function classifyCodexError(error: TurnError): AgentErrorInfo {
  const message = [error.message, error.additionalDetails].filter(Boolean).join(': ');
  const status = statusOf(error);
  if (status !== undefined) return errorInfo(classifyStatus(status, message), message, status);
  const kind = typeof error.codexErrorInfo === 'string' ? infoCodes[error.codexErrorInfo] : undefined;
  if (kind) return errorInfo(kind, message);
  return classifyError(new Error(message));
}

/** A retry codex makes of one request on its own (`willRetry`), as attempt and limit when it says. */
export function codexRetryOf(message: string): { attempt: number; maxRetries: number } | null {
  const match = reconnecting.exec(message);
  return match ? { attempt: Number(match[1]), maxRetries: Number(match[2]) } : null;
}
