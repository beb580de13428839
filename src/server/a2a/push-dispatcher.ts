import { StreamResponse, Task, TaskPushNotificationConfig } from '@a2a-js/sdk';
import type { A2aPushDelivery, A2aStore } from '../../store/a2a-store.js';
import type { Leadership } from '../../store/store.js';
import { PushPoster, type PushSenderOptions } from './push-sender.js';

export interface PushDispatcherOptions {
  store: A2aStore;
  /** The push duty: only the node that holds it sends. */
  duty: Leadership;
  push?: PushSenderOptions;
  /** How often the duty's holder looks for events to send, besides being woken by its own. @default 200 */
  pollMs?: number;
  /** How often it looks for open tasks with push configs that nobody here follows. @default 2000 */
  adoptMs?: number;
  log?: (line: string) => void;
}

/**
 * Push notifications as a cluster-wide duty (docs/decisions/0091-a2a-push-as-a-cluster-duty.md).
 * Every node that follows a task queues the task's events in the store's push outbox, each under a
 * stable id, so two followers of one task queue it once. The one node holding the duty sends them:
 * per config and task, in order, one at a time, committing each config's progress after each send,
 * so the node that takes the duty over after a death starts at the event that was in flight.
 */
export class PushDispatcher {
  private readonly store: A2aStore;
  private readonly duty: Leadership;
  private readonly poster: PushPoster;
  private readonly pollMs: number;
  private readonly adoptMs: number;
  private readonly log: ((line: string) => void) | undefined;
  /** Config keys with a delivery chain running. */
  private readonly chains = new Map<string, Promise<void>>();
  /**
   * The last seq this node committed, per config key: a read of pending deliveries that began
   * before a chain's last commits must not start them again.
   */
  private readonly committed = new Map<string, number>();
  private adopt: () => Promise<void> = async () => {};
  private adoptedAt = 0;
  private running: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;

  constructor(options: PushDispatcherOptions) {
    this.store = options.store;
    this.duty = options.duty;
    this.poster = new PushPoster({
      ...options.push,
      ...(options.log && !options.push?.log ? { log: options.log } : {}),
    });
    this.pollMs = options.pollMs ?? 200;
    this.adoptMs = options.adoptMs ?? 2000;
    this.log = options.log;
  }

  /** Starts sending while this node holds the duty; `adopt` follows the open tasks that notify. */
  start(adopt: () => Promise<void>): void {
    this.adopt = adopt;
    this.running ??= this.loop();
  }

  /**
   * Queues a task event for the task's push configs (nothing when it has none). `eventId` is stable:
   * the same event queued by another node, or again after a restart, is kept once.
   */
  async queue(options: { eventId: string; response: StreamResponse; task: Task | undefined }): Promise<void> {
    const taskId = taskIdOf(options.response);
    if (!taskId || this.poster.closed) return;
    const configs = await this.store.listA2aPushConfigs(taskId);
    if (configs.length === 0) return;
    // Only v0.3 notifications carry the whole task; v1.0 ones carry the event alone.
    const withTask = options.task && configs.some((config) => config.wireVersion === '0.3');
    await this.store.appendA2aPushEvent({
      taskId,
      eventId: options.eventId,
      event: StreamResponse.toJSON(options.response) as Record<string, unknown>,
      task: withTask ? (Task.toJSON(options.task!) as Record<string, unknown>) : null,
      now: Date.now(),
    });
    this.wake();
  }

  /** Whether the task has a push config: the duty's holder follows such tasks when no one else does. */
  async notifies(taskId: string): Promise<boolean> {
    return (await this.store.listA2aPushConfigs(taskId)).length > 0;
  }

  /** Resolves once this node has nothing left to send (immediately when it does not hold the duty). */
  async idle(): Promise<void> {
    for (;;) {
      if (this.chains.size > 0) {
        await Promise.allSettled([...this.chains.values()]);
        continue;
      }
      if (this.poster.closed || !this.duty.leader) return;
      if ((await this.store.pendingA2aPushDeliveries({ perConfig: 1 })).length === 0) return;
      this.wake();
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Stops sending; a notification in flight is abandoned (the duty's next holder sends it). */
  async close(): Promise<void> {
    this.poster.close();
    this.wake();
    await this.running;
    await Promise.allSettled([...this.chains.values()]);
  }

  private wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private async loop(): Promise<void> {
    while (!this.poster.closed) {
      this.woken = false;
      if (this.duty.leader) {
        try {
          if (Date.now() - this.adoptedAt >= this.adoptMs) {
            this.adoptedAt = Date.now();
            await this.adopt();
          }
          await this.dispatch();
        } catch (error) {
          // The store is down or the duty was lost: the next round tries again.
          this.log?.(`push notifications: ${String(error)}`);
        }
      } else this.adoptedAt = 0;
      if (!this.woken) await this.pause();
    }
  }

  /** Starts a delivery chain for each config with events pending and none running. */
  private async dispatch(): Promise<void> {
    const byConfig = new Map<string, A2aPushDelivery[]>();
    const seen = new Set<string>();
    for (const delivery of await this.store.pendingA2aPushDeliveries()) {
      const key = `${delivery.config.taskId}\u0000${delivery.config.id}`;
      seen.add(key);
      if (this.chains.has(key) || delivery.event.seq <= (this.committed.get(key) ?? 0)) continue;
      byConfig.set(key, [...(byConfig.get(key) ?? []), delivery]);
    }
    for (const [key, deliveries] of byConfig) {
      const chain = this.deliverInOrder(key, deliveries)
        .catch((error: unknown) => this.log?.(`push notifications: ${String(error)}`))
        .finally(() => {
          this.chains.delete(key);
          this.wake();
        });
      this.chains.set(key, chain);
    }
    // Only a read that overlapped a chain's commits can be stale; keys neither read nor running are done with.
    for (const key of this.committed.keys())
      if (!seen.has(key) && !this.chains.has(key)) this.committed.delete(key);
  }

  private async deliverInOrder(key: string, deliveries: A2aPushDelivery[]): Promise<void> {
    for (const { config, event } of deliveries) {
      // A node that lost the duty stops at once: the new holder starts from the committed progress.
      if (this.poster.closed || !this.duty.leader) return;
      const done = await this.poster.post({
        stored: {
          config: TaskPushNotificationConfig.fromJSON(config.config),
          wireVersion: config.wireVersion,
        },
        response: StreamResponse.fromJSON(event.event),
        task: event.task
          ? Task.fromJSON(event.task)
          : await this.currentTask(config.wireVersion, config.taskId),
        notificationId: event.eventId,
      });
      if (!done) return;
      await this.store.commitA2aPushDelivery({ taskId: config.taskId, configId: config.id, seq: event.seq });
      this.committed.set(key, event.seq);
    }
  }

  /** A v0.3 notification of an event queued without its task (a replay) carries the task as stored. */
  private async currentTask(wireVersion: string, taskId: string): Promise<Task | undefined> {
    if (wireVersion !== '0.3') return undefined;
    const record = await this.store.getA2aTask(taskId);
    return record ? Task.fromJSON(record.task) : undefined;
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.pollMs);
      this.wakeUp = done;
    });
  }
}

function taskIdOf(response: StreamResponse): string {
  const payload = response.payload;
  if (!payload) return '';
  return payload.$case === 'task' ? payload.value.id : payload.value.taskId;
}
