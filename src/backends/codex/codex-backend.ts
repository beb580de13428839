import type { AgentBackend, AgentSession, StartSessionOptions } from '../agent-backend.js';
import { CodexSession } from './codex-session.js';

export interface CodexBackendOptions {
  /** The `codex` executable. @default the one in the `@openai/codex` package */
  codexPath?: string;
}

/**
 * The Codex backend: `@openai/codex-sdk` threads, each turn one `codex exec` of the `@openai/codex`
 * executable, resumed by thread id.
 */
export class CodexBackend implements AgentBackend {
  readonly name = 'codex';
  readonly transcripts = 'native';

  constructor(private readonly options: CodexBackendOptions = {}) {}

  startSession(options: StartSessionOptions): AgentSession {
    return new CodexSession(options, this.options.codexPath);
  }
}
