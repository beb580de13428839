import type { PreToolUseHookInput } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import type { PermissionDecision, PermissionRequest } from '../agent-backend.js';
import { PermissionBridge } from './permission-bridge.js';
import { TurnTimer } from './turn-timer.js';

/** A turn timer that records whether it runs. */
class RecordingTimer extends TurnTimer {
  running = false;
  override start(): void {
    this.running = true;
  }
  override pause(): void {
    this.running = false;
  }
}

/** A decision that comes only when the test gives it. */
function deferred() {
  let resolve!: (decision: PermissionDecision | null) => void;
  const promise = new Promise<PermissionDecision | null>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const context = {
  signal: new AbortController().signal,
  suggestions: [],
  toolUseID: 'tool-1',
  requestId: 'request-1',
};

/** What claude hands a PreToolUse hook. */
function preToolUse(toolUseId: string): PreToolUseHookInput {
  return {
    hook_event_name: 'PreToolUse',
    session_id: 'session-1',
    transcript_path: '/nowhere',
    cwd: '/',
    tool_name: 'Bash',
    tool_input: {},
    tool_use_id: toolUseId,
  };
}

describe('PermissionBridge', () => {
  it('the turn clock stops while anyone is asked, by the callback or the hook, and runs again after the last answer', async () => {
    const timer = new RecordingTimer(60_000, () => {});
    timer.start();
    const bridge = new PermissionBridge(() => timer);
    const asked: PermissionRequest[] = [];
    const first = deferred();
    const second = deferred();
    const canUseTool = bridge.canUseTool(async (request) => {
      asked.push(request);
      return (await first.promise) ?? { behavior: 'deny', message: 'no' };
    });
    const hook = bridge.deferredToolHook(() => second.promise).hooks[0]!;

    const fromCallback = canUseTool('Bash', { command: 'ls' }, context);
    const fromHook = hook(preToolUse('tool-2'), 'tool-2', { signal: context.signal });
    await Promise.resolve();
    expect(timer.running).toBe(false);
    first.resolve({ behavior: 'allow', updatedInput: { command: 'ls -la' } });
    expect(await fromCallback).toEqual({ behavior: 'allow', updatedInput: { command: 'ls -la' } });
    expect(timer.running, 'still asking through the hook').toBe(false);
    second.resolve({ behavior: 'deny', message: 'not now' });
    expect(await fromHook).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'not now',
      },
    });
    expect(timer.running).toBe(true);
    expect(asked.map((request) => [request.toolName, request.toolUseId])).toEqual([['Bash', 'tool-1']]);
  });

  it('the hook leaves a tool use agentd never asked about to the usual decision', async () => {
    const bridge = new PermissionBridge(() => undefined);
    const hook = bridge.deferredToolHook(async () => null).hooks[0]!;
    expect(await hook(preToolUse('tool-3'), 'tool-3', { signal: context.signal })).toEqual({});
  });
});
