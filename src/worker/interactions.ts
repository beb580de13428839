import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PermissionDecision, PermissionRequest } from '../backends/agent-backend.js';
import { journalEntry } from '../journal/journal-event.js';
import { decidingRule } from '../permissions/deciding-rule.js';
import type { RuleScope } from '../store/rule-storage.js';
import type { InteractionRecord, Store } from '../store/store.js';

export interface InteractionBridgeOptions {
  store: Store;
  sessionId: string;
  executionId: string;
  epoch: () => number;
  /** How often to look for an answer. @default 100 */
  pollMs?: number;
  /**
   * Gives the waits between looks for one answer; the worker's end early when signalled.
   * @default plain timers
   */
  napper?: () => (ms: number) => Promise<void>;
  /** Whether an interrupt of the turn was requested; checked before an answer is handed back. */
  interrupted?: () => Promise<boolean>;
  /** Runs before a new interaction is persisted (the worker waits for the transcript mirror). */
  beforeCreate?: (toolUseId: string) => Promise<void>;
}

/** The decision an answer stands for. Answers are validated by the runtime before they are stored. */
export function decisionFromAnswer(interaction: InteractionRecord): PermissionDecision {
  const answer = interaction.answer ?? {};
  const input = (interaction.request.input ?? {}) as Record<string, unknown>;
  if (interaction.kind === 'question') {
    return { behavior: 'allow', updatedInput: { ...input, answers: answer.answers ?? {} } };
  }
  if (answer.decision === 'approve') {
    const updatedInput = (answer.updatedInput as Record<string, unknown> | undefined) ?? input;
    return { behavior: 'allow', updatedInput };
  }
  const reason =
    typeof answer.reason === 'string' && answer.reason ? answer.reason : 'The user denied this tool use.';
  return { behavior: 'deny', message: reason };
}

/**
 * Turns the backend's permission requests into persisted interactions and waits for their answers,
 * which arrive through the store (from any process, on any node). Nothing is approved here.
 */
export class InteractionBridge {
  private readonly pollMs: number;
  private pendingCount = 0;
  /** Whose permission rules decide before anyone is asked (set once the session is known). */
  private ruleTargets: Array<{ scope: RuleScope; target: string }> = [];

  constructor(private readonly options: InteractionBridgeOptions) {
    this.pollMs = options.pollMs ?? 100;
  }

  get pending(): number {
    return this.pendingCount;
  }

  /** From now on these targets' permission rules decide before anyone is asked. */
  useRules(targets: Array<{ scope: RuleScope; target: string }>): void {
    this.ruleTargets = targets;
  }

  /** For `canUseTool`: persist the request, announce it, wait for the answer. */
  async request(request: PermissionRequest): Promise<PermissionDecision> {
    const { store, sessionId, executionId } = this.options;
    const existing = request.toolUseId ? await this.findByToolUse(request.toolUseId) : undefined;
    if (!existing && request.toolName !== 'AskUserQuestion') {
      const decided = await this.decideByRule(request);
      if (decided) return decided;
    }
    if (!existing && request.toolUseId) await this.options.beforeCreate?.(request.toolUseId);
    const interaction =
      existing ??
      (await store.createInteraction(
        {
          id: randomUUID(),
          sessionId,
          executionId,
          kind: request.toolName === 'AskUserQuestion' ? 'question' : 'approval',
          toolName: request.toolName,
          toolUseId: request.toolUseId,
          request: {
            input: request.input,
            suggestions: request.suggestions,
            blockedPath: request.blockedPath,
          },
          createdAt: Date.now(),
        },
        { epoch: this.options.epoch() },
      ));
    if (!existing) {
      await store.appendEvents(
        sessionId,
        [journalEntry({ type: 'interaction.requested', interaction }, executionId)],
        {
          epoch: this.options.epoch(),
          now: Date.now(),
        },
      );
    }
    return this.waitForAnswer(interaction.id, request.signal);
  }

  /**
   * A persisted rule (an answer scoped to the session, a rule of the role or organization) decides
   * without asking anyone; the decision is journaled with the rule that made it.
   */
  private async decideByRule(request: PermissionRequest): Promise<PermissionDecision | null> {
    const { store, sessionId, executionId } = this.options;
    const ruleTargets = this.ruleTargets;
    if (ruleTargets.length === 0) return null;
    const rules = await store.listPermissionRules({ targets: ruleTargets });
    const rule = decidingRule(rules, request.toolName, request.input);
    if (!rule) return null;
    await store.appendEvents(
      sessionId,
      [
        journalEntry(
          {
            type: 'interaction.auto_decided',
            toolName: request.toolName,
            toolUseId: request.toolUseId,
            input: request.input,
            decision: rule.decision,
            rule: { id: rule.id, rule: rule.rule, scope: rule.scope, target: rule.target },
          },
          executionId,
        ),
      ],
      { epoch: this.options.epoch(), now: Date.now() },
    );
    if (rule.decision === 'approve') return { behavior: 'allow', updatedInput: request.input };
    return {
      behavior: 'deny',
      message: `Denied by the permission rule ${rule.rule} (${rule.scope} ${rule.target}).`,
    };
  }

  /**
   * For a tool use that an earlier execution left waiting (the worker died while a person was
   * being asked): the recorded answer, waiting for it if need be; null when agentd never asked.
   */
  async resumeDeferred(toolUseId: string, signal: AbortSignal): Promise<PermissionDecision | null> {
    const interaction = await this.findByToolUse(toolUseId);
    if (!interaction) return null;
    return this.waitForAnswer(interaction.id, signal);
  }

  private async findByToolUse(toolUseId: string): Promise<InteractionRecord | undefined> {
    const all = await this.options.store.listInteractions({ sessionId: this.options.sessionId });
    return all.find((interaction) => interaction.toolUseId === toolUseId);
  }

  private async waitForAnswer(id: string, signal: AbortSignal): Promise<PermissionDecision> {
    this.pendingCount++;
    const nap = this.options.napper?.() ?? sleep;
    try {
      for (;;) {
        const interaction = await this.options.store.getInteraction(id);
        if (interaction?.state === 'answered') {
          if (await this.options.interrupted?.()) {
            return { behavior: 'deny', message: 'The turn was interrupted.', interrupt: true };
          }
          return decisionFromAnswer(interaction);
        }
        if (signal.aborted) return { behavior: 'deny', message: 'The turn was interrupted.' };
        await nap(this.pollMs);
      }
    } finally {
      this.pendingCount--;
    }
  }
}
