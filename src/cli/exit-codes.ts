/** The CLI's exit codes; scripts depend on them. `agentd --help` prints `exitCodesHelp`. */
export const exitCodes = {
  success: 0,
  /** The agent failed (an API error that retries did not cure, max turns, a budget …), or agentd did. */
  failure: 1,
  /** Bad flags, arguments or input (a missing cwd, an empty prompt, a bad CLAUDE_* variable, an unknown /command, an unsafe skill). */
  usage: 2,
  /** No credentials for the session's provider, or the model rejected them. */
  credentials: 3,
  /** What was named does not exist, or is in a state that refuses the command (a conflict, no grant, a spent budget). */
  state: 4,
  /** Stopped with Ctrl-C. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];

/**
 * The one table from agentd's error codes to exit codes. A code not listed is agentd's own fault
 * (a store that cannot be read, a lost lease): `failure`.
 */
const exitCodeByErrorCode: Record<string, ExitCode> = {
  invalid_input: exitCodes.usage,
  invalid_config: exitCodes.usage,
  unknown_command: exitCodes.usage,
  skill_invalid: exitCodes.usage,
  skill_unsafe_path: exitCodes.usage,
  skill_link: exitCodes.usage,
  skill_special_file: exitCodes.usage,
  skill_too_large: exitCodes.usage,
  skill_too_many_files: exitCodes.usage,
  skill_archive_invalid: exitCodes.usage,
  credentials_missing: exitCodes.credentials,
  not_found: exitCodes.state,
  conflict: exitCodes.state,
  invalid_state: exitCodes.state,
  forbidden: exitCodes.state,
  budget_exceeded: exitCodes.state,
  session_busy: exitCodes.state,
  peer_refused: exitCodes.state,
  peer_limit: exitCodes.state,
};

export function exitCodeOf(errorCode: string): ExitCode {
  return exitCodeByErrorCode[errorCode] ?? exitCodes.failure;
}

export const exitCodesHelp = `
Exit codes:
  0    success
  1    the agent failed (or agentd itself did: the store, a worker)
  2    usage: bad flags, arguments or input (invalid_input, invalid_config, unknown_command, skill_*)
  3    credentials: none for the session's provider, or rejected (credentials_missing)
  4    not found, conflict, wrong state, not allowed or over budget
       (not_found, conflict, invalid_state, forbidden, budget_exceeded,
       peer_refused, peer_limit)
  130  interrupted with Ctrl-C
`;
