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
} from './agentd-error.js';
