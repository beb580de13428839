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

/** A skill that is not one: no `SKILL.md` at its root, no usable `name`, or content that cannot be a folder. */
/** A peer message the receiver does not take: it refuses peers, or the sender's permission mode is unknown. */
export class PeerRefusedError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'peer_refused', message, userError: true, details });
  }
}

/** Too many peer messages: per pair per minute, or per thread without a person in between. */
export class PeerLimitError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'peer_limit', message, userError: true, details });
  }
}

/** The acting principal lacks a grant the action needs; nothing changed. */
export class ForbiddenError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'forbidden', message, userError: true, details });
  }
}

/** A session, role or organization reached its spending limit: inputs wait until it is raised. */
export class BudgetExceededError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'budget_exceeded', message, userError: true, details });
  }
}

/** A message sent with `ifBusy: 'reject'` while its session is mid-turn: nothing was journaled. */
export class SessionBusyError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'session_busy', message, userError: true, details });
  }
}

export class SkillInvalidError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'skill_invalid', message, userError: true, details });
  }
}

/** A stored skill blob whose bytes no longer hash to its digest: it is never returned. */
export class SkillCorruptError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'skill_corrupt', message, details });
  }
}

/** A skill entry whose path is absolute, climbs out with `..`, or is otherwise not a plain relative path. */
export class SkillUnsafePathError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'skill_unsafe_path', message, userError: true, details });
  }
}

/** A skill entry that is a symbolic or hard link: links are refused, whatever they point at. */
export class SkillLinkError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'skill_link', message, userError: true, details });
  }
}

/** A skill entry that is neither a regular file nor a directory (device, FIFO, socket, sparse file). */
export class SkillSpecialFileError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'skill_special_file', message, userError: true, details });
  }
}

/** A skill (or the archive it came in) over the total size limit, counted while reading. */
export class SkillTooLargeError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'skill_too_large', message, userError: true, details });
  }
}

/** A skill with more entries than the file-count limit. */
export class SkillTooManyFilesError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'skill_too_many_files', message, userError: true, details });
  }
}

/** A skill source that is not a folder, a zip or a (gzipped) tar, or an archive that cannot be read. */
export class SkillArchiveError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'skill_archive_invalid', message, userError: true, details });
  }
}

/** `materialize` was pointed at a directory that already holds something. */
export class SkillTargetExistsError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'skill_target_exists', message, details });
  }
}

/** A monitor's runner did not start (or did not say so in time): a fault of this host, not of the request. */
export class MonitorStartError extends AgentdError {
  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: 'monitor_failed', message, details });
  }
}
