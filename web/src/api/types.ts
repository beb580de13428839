/** The HTTP API's records as the dashboard reads them (docs/http-api.md, /openapi.json). */

export interface Session {
  id: string;
  state: 'active' | 'archived';
  provider: string;
  organization: string | null;
  role: string | null;
  roleVersion: number | null;
  model: string | null;
  cwd: string;
  costUsd: number;
  config: Record<string, unknown>;
  title: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface Execution {
  id: string;
  sessionId: string;
  state: 'starting' | 'running' | 'idle' | 'stopping' | 'stopped' | 'failed';
  error: Record<string, unknown> | null;
  createdAt: number;
  endedAt: number | null;
}

export type DeliveryState = 'accepted' | 'dispatching' | 'delivered' | 'uncertain';

export interface Input {
  id: string;
  messageId: string;
  text: string;
  state: DeliveryState;
  createdAt: number;
}

export type Attention = 'needs_you' | 'working' | 'idle' | 'hibernated' | 'finished' | 'failed' | 'archived';

export interface SessionOverview {
  session: Session;
  attention: Attention;
  title: string | null;
  live: Execution | null;
  lastExecution: Execution | null;
  pendingInteractions: number;
  lastCursor: number;
  lastActivityAt: number;
}

export interface SessionDetails {
  session: Session;
  executions: Execution[];
  inputs: Input[];
  live: Execution | null;
  lastCursor: number;
  /** No worker runs since the idle timeout; the next message wakes it. */
  hibernated: boolean;
}

export interface Interaction {
  id: string;
  sessionId: string;
  kind: 'approval' | 'question';
  toolName: string;
  toolUseId: string | null;
  request: { input?: Record<string, unknown>; [key: string]: unknown };
  state: 'pending' | 'answered';
  answer: Record<string, unknown> | null;
  createdAt: number;
  answeredAt: number | null;
}

/** One journal event; `data` depends on `type` (docs/http-api.md#events). */
export interface JournalEvent {
  sessionId: string;
  cursor: number;
  type: string;
  data: Record<string, unknown>;
  executionId: string | null;
  createdAt: number;
}

export interface Role {
  name: string;
  organization: string;
  version: number;
  [key: string]: unknown;
}

export interface NamedRecord {
  name: string;
  [key: string]: unknown;
}
