import { randomUUID } from 'node:crypto';
import { TaskPushNotificationConfig } from '@a2a-js/sdk';
import type {
  PushNotificationStore,
  ServerCallContext,
  StoredPushNotificationConfig,
} from '@a2a-js/sdk/server';
import type { A2aStore } from '../../store/a2a-store.js';

/** The SDK's `PushNotificationStore` on the A2A store: configs survive restarts with their tasks. */
export class AgentdPushNotificationStore implements PushNotificationStore {
  constructor(private readonly store: A2aStore) {}

  async save(taskId: string, context: ServerCallContext, config: TaskPushNotificationConfig): Promise<void> {
    // The SDK reads the id the store assigns from the object it passed in.
    if (!config.id) config.id = randomUUID();
    await this.store.saveA2aPushConfig({
      taskId,
      id: config.id,
      config: TaskPushNotificationConfig.toJSON(config) as Record<string, unknown>,
      wireVersion: context.requestedVersion || '0.3',
      now: Date.now(),
    });
  }

  async load(taskId: string): Promise<TaskPushNotificationConfig[]> {
    return (await this.loadWithMetadata(taskId)).map((stored) => stored.config);
  }

  async loadWithMetadata(taskId: string): Promise<StoredPushNotificationConfig[]> {
    return (await this.store.listA2aPushConfigs(taskId)).map((record) => ({
      config: TaskPushNotificationConfig.fromJSON(record.config),
      wireVersion: record.wireVersion,
    }));
  }

  /** Without a config id, v0.3 deletes the config whose id is the task id. */
  async delete(taskId: string, _context: ServerCallContext, configId?: string): Promise<void> {
    await this.store.deleteA2aPushConfig({ taskId, id: configId ?? taskId });
  }
}
