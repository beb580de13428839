import type { AgentBackend, AgentSession, StartSessionOptions } from '../agent-backend.js';
import { CodexSession } from './codex-session.js';

export interface CodexBackendOptions {
  /** The `codex` executable. @default the one in the `@openai/codex` package */
  codexPath?: string;
}

/**
 * The Codex backend: one `codex app-server` child (the `@openai/codex` executable) per session,
 * driven over its JSON-RPC protocol; threads are resumed by id, and codex's approval requests are
 * asked through `canUseTool`.
 */
export class CodexBackend implements AgentBackend {
  readonly name = 'codex';
  readonly transcripts = 'native';

  constructor(private readonly options: CodexBackendOptions = {}) {}

  startSession(options: StartSessionOptions): AgentSession {
    return new CodexSession(options, this.options.codexPath);
  }
}
