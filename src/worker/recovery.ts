import { setTimeout as sleep } from 'node:timers/promises';
import type { RewindPoint, WaitingToolUse } from '../backends/agent-backend.js';
import type { Store } from '../store/store.js';
import { markInterruptedToolUses, projectKeyOf, transcriptHasToolUse } from './deferred-tools.js';
import { rewindPointOf } from './rollback.js';

export interface RecoveryOptions {
  store: Store;
  sessionId: string;
  executionId: string;
  cwd: string;
  /** How often to look at the mirrored transcript. @default 50 */
  pollMs?: number;
  log: (line: string) => void;
}

/**
 * What a new execution picks up from the ones before it: the native session to resume, the tool
 * uses a dead worker left waiting for a person, and the transcript mirror an interaction waits for.
 */
export class Recovery {
  /** The native session, once known: resumed, or reported by the agent. */
  nativeSessionId: string | null = null;

  constructor(private readonly options: RecoveryOptions) {}

  /**
   * The native session to resume. A worker killed before the SDK mirrored anything leaves a
   * session id with no transcript in the store; `claude --resume` would fail on it for good
   * ("No conversation found"), so such a session starts afresh instead.
   */
  async resumableSession(nativeSessionId: string | null): Promise<string | undefined> {
    if (!nativeSessionId) return undefined;
    const entries = await this.options.store.loadTranscriptTail(this.keyOf(nativeSessionId));
    if (entries && entries.length > 0) {
      this.nativeSessionId = nativeSessionId;
      return nativeSessionId;
    }
    this.options.log(`claude session ${nativeSessionId} has no transcript in the store; starting a new one`);
    return undefined;
  }

  /**
   * Tool uses that a dead worker left waiting for a person are marked deferred in the transcript,
   * so that the resumed session asks for them again and gets the persisted answer.
   */
  async continueInterruptedToolUses(nativeSessionId: string): Promise<string[]> {
    const { store, sessionId, executionId } = this.options;
    const interactions = (await store.listInteractions({ sessionId })).filter(
      (interaction) => interaction.executionId !== executionId && interaction.toolUseId !== null,
    );
    if (interactions.length === 0) return [];
    const marked = await markInterruptedToolUses({ store, key: this.keyOf(nativeSessionId), interactions });
    if (marked.length > 0) this.options.log(`continuing deferred tool uses: ${marked.join(', ')}`);
    return marked;
  }

  /**
   * For a backend with its own transcripts: the approvals of earlier executions whose tool use the
   * journal shows no result for, with the decision the earlier process handed the agent, if any
   * (its `agent.tool_permission`). The backend finds out from its own thread which still wait.
   */
  async waitingToolUses(): Promise<WaitingToolUse[]> {
    const { store, sessionId, executionId } = this.options;
    const candidates = (await store.listInteractions({ sessionId })).filter(
      (interaction) =>
        interaction.executionId !== executionId &&
        interaction.toolUseId !== null &&
        interaction.kind === 'approval',
    );
    if (candidates.length === 0) return [];
    const finished = new Set<string>();
    const handedOver = new Map<string, 'allow' | 'deny'>();
    for (let after = 0; ; ) {
      const page = await store.readEvents(sessionId, { after, limit: 1000 });
      if (page.length === 0) break;
      for (const event of page) {
        const data = event.data as { toolUseId?: unknown; behavior?: unknown };
        if (typeof data?.toolUseId !== 'string') continue;
        if (event.type === 'agent.tool_result') finished.add(data.toolUseId);
        else if (
          event.type === 'agent.tool_permission' &&
          (data.behavior === 'allow' || data.behavior === 'deny')
        )
          handedOver.set(data.toolUseId, data.behavior);
      }
      after = page.at(-1)!.cursor;
    }
    return candidates
      .filter((interaction) => !finished.has(interaction.toolUseId!))
      .map((interaction) => ({
        toolUseId: interaction.toolUseId!,
        toolName: interaction.toolName,
        input: (interaction.request.input ?? {}) as Record<string, unknown>,
        handedOver: handedOver.get(interaction.toolUseId!) ?? null,
      }));
  }

  /**
   * An interaction must never outlive the transcript entry it answers: if the worker dies, resume
   * finds the tool use in the store and continues it. The SDK mirrors the entry within moments.
   */
  async awaitMirroredToolUse(toolUseId: string): Promise<void> {
    if (!this.nativeSessionId) return;
    const key = this.keyOf(this.nativeSessionId);
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      if (await transcriptHasToolUse(this.options.store, key, toolUseId)) return;
      await sleep(this.options.pollMs ?? 50);
    }
    this.options.log(`tool use ${toolUseId} not mirrored to the store yet; asking anyway`);
  }

  /** Where the native session resumes to forget the turn of `inputId` (rollback); null when it never saw it. */
  async rewindPoint(inputId: string): Promise<RewindPoint | null> {
    if (!this.nativeSessionId) return null;
    return rewindPointOf({ store: this.options.store, key: this.keyOf(this.nativeSessionId), inputId });
  }

  private keyOf(nativeSessionId: string) {
    return { projectKey: projectKeyOf(this.options.cwd), sessionId: nativeSessionId };
  }
}
