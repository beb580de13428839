/**
 * Every failure agentd raises is an `AgentdError` with a stable string `code`.
 * Callers branch on `code` (or `instanceof`), never on `message`.
 */
export class AgentdError extends Error {
  readonly code: string;
  /** True for a user's mistake (bad input, unknown id); false for a system fault. */
  readonly userError: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(options: {
    code: string;
    message: string;
    userError?: boolean;
    cause?: unknown;
    details?: Record<string, unknown>;
  }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.userError = options.userError ?? false;
    this.details = options.details;
  }
}

/** A request that contradicts what is already recorded (same id, other content; a second answer). */
export class ConflictError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'conflict', message, userError: true, details });
  }
}

export class NotFoundError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'not_found', message, userError: true, details });
  }
}

/** Input that fails validation: wrong types, malformed values, unknown options. */
export class InvalidInputError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'invalid_input', message, userError: true, details });
  }
}

/** A configuration value (flag, env variable, config file) that cannot be used. */
export class ConfigError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'invalid_config', message, userError: true, details });
  }
}

/** The writer's lease epoch is no longer current: another worker owns the session. */
export class LeaseLostError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'lease_lost', message, details });
  }
}

/** The data file is not an agentd store, is corrupt, or comes from a newer version. */
export class StoreError extends AgentdError {
  constructor(options: { code?: string; message: string; cause?: unknown }) {
    super({ code: options.code ?? 'store_error', message: options.message, cause: options.cause });
  }
}

/** An operation that is not allowed in the current state (e.g. attach while a worker runs). */
export class StateError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'invalid_state', message, userError: true, details });
  }
}

/** No model credentials are configured, so no agent can be started. */
export class CredentialsMissingError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'credentials_missing', message, details });
  }
}

/** A journaled event read back from the store does not fit its type: damaged or foreign data. */
export class JournalCorruptError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'journal_corrupt', message, details });
  }
}

/** A message starting with `/` that names no command of the closed protocol; it never reaches the agent. */
export class UnknownCommandError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'unknown_command', message, userError: true, details });
  }
}
