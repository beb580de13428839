/** The CLI's exit codes; scripts depend on them. */
export const exitCodes = {
  success: 0,
  /** The agent failed (an API error that retries did not cure, max turns, a budget …). */
  failure: 1,
  /** Bad flags or arguments. */
  usage: 2,
  /** Missing or rejected credentials. */
  credentials: 3,
  /** Stopped with Ctrl-C. */
  interrupted: 130,
} as const;
