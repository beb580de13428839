import { describe } from 'vitest';
import { describeBudgetContract } from './contract/budget-contract.js';
import { describeChannelContract } from './contract/channel-contract.js';
import { describeChatMessageContract } from './contract/chat-message-contract.js';
import { useFreshStore } from './contract/contract-context.js';
import { describeEventContract } from './contract/event-contract.js';
import { describeExecutionContract } from './contract/execution-contract.js';
import { describeFencingContract } from './contract/fencing-contract.js';
import { describeGrantContract } from './contract/grant-contract.js';
import { describeInputContract } from './contract/input-contract.js';
import { describeInteractionContract } from './contract/interaction-contract.js';
import { describeLeaseContract } from './contract/lease-contract.js';
import { describeOrganizationContract } from './contract/organization-contract.js';
import { describePermissionRuleContract } from './contract/permission-rule-contract.js';
import { describeProviderContract } from './contract/provider-contract.js';
import { describeRoleContract } from './contract/role-contract.js';
import { describeScheduleContract } from './contract/schedule-contract.js';
import { describeSessionContract } from './contract/session-contract.js';
import { describeTranscriptContract } from './contract/transcript-contract.js';
import { describeWebhookContract } from './contract/webhook-contract.js';
import type { Store } from './store.js';

export interface StoreContractOptions {
  /** Names the implementation in test output, such as `sqlite`. */
  name: string;
  /** Opens a new, empty store; called before each test, and the store is closed after it. */
  createStore: () => Promise<Store>;
}

/**
 * The behaviour every `Store` implementation must have, as a Vitest suite. Each implementation's
 * test file calls it (`runStoreContract({ name: 'sqlite', createStore })`). It goes through the
 * `Store` interface only, and passes every time explicitly, so it needs no clock control.
 */
export function runStoreContract(options: StoreContractOptions): void {
  describe(`Store contract: ${options.name}`, () => {
    const context = useFreshStore(options.createStore);
    describeSessionContract(context);
    describeLeaseContract(context);
    describeFencingContract(context);
    describeExecutionContract(context);
    describeInputContract(context);
    describeEventContract(context);
    describeInteractionContract(context);
    describeTranscriptContract(context);
    describeProviderContract(context);
    describeOrganizationContract(context);
    describeRoleContract(context);
    describeChannelContract(context);
    describeGrantContract(context);
    describeBudgetContract(context);
    describeChatMessageContract(context);
    describeScheduleContract(context);
    describeWebhookContract(context);
    describePermissionRuleContract(context);
  });
}
