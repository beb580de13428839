export {
  AgentdError,
  ConfigError,
  ConflictError,
  InvalidInputError,
  LeaseLostError,
  NotFoundError,
  StateError,
  StoreError,
} from './agentd-error.js';
