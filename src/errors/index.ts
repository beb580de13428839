export {
  AgentdError,
  ConfigError,
  ConflictError,
  CredentialsMissingError,
  InvalidInputError,
  LeaseLostError,
  NotFoundError,
  StateError,
  StoreError,
} from './agentd-error.js';
