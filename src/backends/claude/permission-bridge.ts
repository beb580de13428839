import type {
  CanUseTool,
  HookCallback,
  HookCallbackMatcher,
  PermissionResult,
  PermissionUpdate,
} from '@anthropic-ai/claude-agent-sdk';
import type { PermissionDecision, PermissionHandler, StartSessionOptions } from '../agent-backend.js';
import type { TurnTimer } from './turn-timer.js';

/**
 * Where claude asks agentd about a tool use: the permission callback (`canUseTool`) and, for tool
 * uses an earlier process left deferred, a PreToolUse hook. Both wait for a person the same way:
 * the turn's clock stops while anyone is being asked.
 */
export class PermissionBridge {
  private pending = 0;

  /** @param timer the current turn's clock, if a turn runs */
  constructor(private readonly timer: () => TurnTimer | undefined) {}

  /** Runs `ask` with the turn's clock stopped; it starts again once nobody is being asked. */
  private async whileAsking<T>(ask: () => Promise<T>): Promise<T> {
    this.pending++;
    this.timer()?.pause();
    try {
      return await ask();
    } finally {
      this.pending--;
      if (this.pending === 0) this.timer()?.start();
    }
  }

  canUseTool(handler: PermissionHandler): CanUseTool {
    return (toolName, input, context) =>
      this.whileAsking(async () => {
        const decision = await handler({
          toolName,
          input,
          toolUseId: context.toolUseID ?? null,
          suggestions: context.suggestions ?? [],
          blockedPath: context.blockedPath ?? null,
          signal: context.signal,
        });
        return sdkDecision(decision);
      });
  }

  deferredToolHook(resolve: NonNullable<StartSessionOptions['resumeDeferredTool']>): HookCallbackMatcher {
    const hook: HookCallback = async (input, _toolUseId, { signal }) => {
      if (input.hook_event_name !== 'PreToolUse') return {};
      const decision = await this.whileAsking(() => resolve(input.tool_use_id, signal));
      if (decision === null) return {};
      return {
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: decision.behavior,
          ...(decision.behavior === 'allow'
            ? decision.updatedInput
              ? { updatedInput: decision.updatedInput }
              : {}
            : { permissionDecisionReason: decision.message }),
        },
      };
    };
    // A person may take days to answer: the hook waits as long as the permission prompt would.
    return { hooks: [hook], timeout: 365 * 24 * 3600 };
  }
}

/** agentd's decision in the SDK's shape; suggested permission updates come from the SDK and go back as they were. */
function sdkDecision(decision: PermissionDecision): PermissionResult {
  if (decision.behavior === 'deny') {
    return {
      behavior: 'deny',
      message: decision.message,
      ...(decision.interrupt ? { interrupt: true } : {}),
    };
  }
  return {
    behavior: 'allow',
    ...(decision.updatedInput ? { updatedInput: decision.updatedInput } : {}),
    ...(decision.updatedPermissions
      ? { updatedPermissions: decision.updatedPermissions as PermissionUpdate[] }
      : {}),
  };
}
