import type { AgentErrorInfo } from '../agent-event.js';
import { classifyError, classifyStatus, errorInfo } from '../claude/classify.js';

/** `Reconnecting... 2/5 (unexpected status 429 Too Many Requests: …)`: codex retrying one request. */
const reconnecting = /^Reconnecting\.\.\.\s*(\d+)\/(\d+)/;
const statusPattern = /\bstatus (\d{3})\b/;

/** What codex reports about a failed request or turn (`error` events, `turn.failed`), classified. */
export function classifyCodexMessage(message: string): AgentErrorInfo {
  const status = statusPattern.exec(message)?.[1];
  if (status !== undefined) {
    const code = classifyStatus(Number(status), message);
    return errorInfo(code, message, Number(status));
  }
  return classifyError(new Error(message));
}

/** A retry codex makes of one request on its own, or null when the message is no such notice. */
export function codexRetryOf(message: string): { attempt: number; maxRetries: number } | null {
  const match = reconnecting.exec(message);
  return match ? { attempt: Number(match[1]), maxRetries: Number(match[2]) } : null;
}
