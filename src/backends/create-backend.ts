import type { AgentBackend, BackendName } from './agent-backend.js';
import { ClaudeBackend } from './claude/claude-backend.js';
import { CodexBackend } from './codex/codex-backend.js';

/** The backend of that name; each imports its SDK only when a session starts. */
export function createBackend(name: BackendName): AgentBackend {
  return name === 'codex' ? new CodexBackend() : new ClaudeBackend();
}
