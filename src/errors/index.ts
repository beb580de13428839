export {
  AgentdError,
  ConfigError,
  ConflictError,
  CredentialsMissingError,
  InvalidInputError,
  JournalCorruptError,
  LeaseLostError,
  NotFoundError,
  StateError,
  StoreError,
  UnknownCommandError,
} from './agentd-error.js';
