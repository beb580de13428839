import type { AgentBackend, AgentSession, StartSessionOptions } from '../agent-backend.js';
import { ClaudeSession } from './claude-session.js';

/** The Claude backend: Claude Agent SDK `query()` in streaming-input mode. */
export class ClaudeBackend implements AgentBackend {
  readonly name = 'claude';

  startSession(options: StartSessionOptions): AgentSession {
    return new ClaudeSession(options);
  }
}
