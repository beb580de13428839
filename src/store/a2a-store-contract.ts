import { describe } from 'vitest';
import type { A2aStore } from './a2a-store.js';
import { describeA2aContract } from './contract/a2a-contract.js';
import { describeA2aPushContract } from './contract/a2a-push-contract.js';
import { useFreshStore } from './contract/contract-context.js';

export interface A2aStoreContractOptions {
  /** Names the implementation in test output, such as `sqlite`. */
  name: string;
  /** Opens a new, empty A2A store; called before each test, and the store is closed after it. */
  createStore: () => Promise<A2aStore>;
}

/**
 * The behaviour every `A2aStore` implementation must have, as a Vitest suite, called by each
 * implementation's test file the way `runStoreContract` is.
 */
export function runA2aStoreContract(options: A2aStoreContractOptions): void {
  describe(`A2aStore contract: ${options.name}`, () => {
    const context = useFreshStore(options.createStore);
    describeA2aContract(context);
    describeA2aPushContract(context);
  });
}
