import type { PermissionDecision, SessionSpec, WaitingToolUse } from '../agent-backend.js';
import type { AgentEvent } from '../agent-event.js';
import type { CodexAppServer } from './app-server.js';
import { callIdOf } from './approvals.js';
import { sandboxPolicyOf } from './codex-options.js';
import { type CodexEventConverter, codexToolNames } from './convert.js';
import {
  type CommandExecParams,
  type CommandExecResponse,
  clientMethods,
  type ThreadItem,
  type ThreadItemsListResponse,
} from './protocol.js';

export interface ContinueWaitingOptions {
  server: CodexAppServer;
  threadId: string;
  spec: SessionSpec;
  waiting: WaitingToolUse[];
  converter: CodexEventConverter;
  /** The persisted answer for a tool use (waiting for it while nobody has answered), null if none. */
  decide: (toolUseId: string, signal: AbortSignal) => Promise<PermissionDecision | null>;
  signal: AbortSignal;
}

/** The items codex finished in the thread (a command that ran or was declined is one), by id. */
async function finishedItems(server: CodexAppServer, threadId: string): Promise<Map<string, ThreadItem>> {
  const items = new Map<string, ThreadItem>();
  let cursor: string | null = null;
  do {
    const page: ThreadItemsListResponse = await server.request(clientMethods.threadItemsList, {
      threadId,
      cursor,
      limit: 200,
    });
    for (const entry of page.data) items.set(entry.item.id, entry.item);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

const preface =
  '[agentd] This call waited for a person, and the process that asked stopped before it finished.';

/** Runs an approved command as codex would have: its shell line, in the session's sandbox and cwd. */
async function runApproved(options: ContinueWaitingOptions, tool: WaitingToolUse) {
  const { spec, server } = options;
  const line = String(tool.input.commandLine ?? tool.input.command ?? '');
  const params: CommandExecParams = {
    command: ['/bin/sh', '-c', line],
    cwd: typeof tool.input.cwd === 'string' ? tool.input.cwd : (spec.cwd ?? process.cwd()),
    sandboxPolicy: sandboxPolicyOf(spec),
    ...(spec.timeoutSeconds > 0 ? { timeoutMs: spec.timeoutSeconds * 1000 } : { disableTimeout: true }),
  };
  try {
    const ran = await server.request<CommandExecResponse>(clientMethods.commandExec, params);
    const output = `${ran.stdout}${ran.stderr}`;
    return {
      content: output,
      isError: ran.exitCode !== 0,
      forModel: `${preface} The person approved it afterwards, and agentd ran it once (in the session's sandbox).\nProcess exited with code ${ran.exitCode}\nOutput:\n${output}`,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      content: `agentd could not run the approved command: ${message}`,
      isError: true,
      forModel: `${preface} The person approved it afterwards, but agentd could not run it: ${message}`,
    };
  }
}

/**
 * Before the first turn of a worker that took over from a dead one: every tool use the dead one
 * left waiting for a person gets its outcome into the thread, as the call's output, exactly once.
 *
 * - Codex finished it after all (the journal had not caught up): its result is reported, nothing runs.
 * - The dead worker had handed codex an approval (`agent.tool_permission` allow): the command may
 *   have run, so it is not run again; the model is told the result is unknown.
 * - Otherwise the person's answer decides (waiting for it if there is none yet, as a live turn
 *   would): an approved command runs once through `command/exec` in the session's sandbox, and its
 *   output becomes the call's output; a denial does, with the person's reason. An approved file
 *   change cannot be applied this way: the model is told to make it again (and is asked again).
 *
 * The result is journaled (`agent.tool_result`) before it goes into the thread.
 */
export async function* continueWaiting(options: ContinueWaitingOptions): AsyncGenerator<AgentEvent> {
  const { server, threadId, converter, signal } = options;
  if (options.waiting.length === 0) return;
  const finished = await finishedItems(server, threadId);
  const answered = new Set<string>();
  for (const tool of options.waiting) {
    if (signal.aborted) return;
    const callId = callIdOf(tool.toolUseId);
    const item = finished.get(callId);
    if (item) {
      // Its call is journaled already: only the result the journal missed.
      for (const event of converter.completed(item, { item, recovered: true }))
        if (event.type === 'agent.tool_result') yield event;
      continue;
    }
    let outcome: { content: string; isError: boolean; forModel: string };
    if (tool.handedOver === 'allow') {
      outcome = {
        content: 'approved, but its result was lost when the worker stopped: it may or may not have run',
        isError: true,
        forModel: `${preface} It had been approved and may or may not have run; its result is unknown. Check before you run it again.`,
      };
    } else if (tool.handedOver === 'deny') {
      outcome = {
        content: 'denied',
        isError: true,
        forModel: `${preface} The person denied it: it did not run.`,
      };
    } else {
      const decision = await options.decide(tool.toolUseId, signal);
      if (signal.aborted) return;
      // agentd never asked about it (no interaction): nothing is known, codex reports it aborted.
      if (!decision) continue;
      yield { type: 'agent.tool_permission', toolUseId: tool.toolUseId, behavior: decision.behavior };
      if (decision.behavior === 'deny') {
        outcome = {
          content: decision.message,
          isError: true,
          forModel: `${preface} The person denied it: it did not run. Their reason: ${decision.message}`,
        };
      } else if (tool.toolName === codexToolNames.commandExecution) {
        outcome = await runApproved(options, tool);
      } else {
        outcome = {
          content: 'approved after the worker stopped; not applied',
          isError: true,
          forModel: `${preface} The person approved it afterwards, but it was not applied: make the change again.`,
        };
      }
    }
    yield {
      type: 'agent.tool_result',
      toolUseId: tool.toolUseId,
      content: outcome.content,
      isError: outcome.isError,
      raw: { recovered: true, handedOver: tool.handedOver },
    };
    // One output per call: two approvals of one command's parts share its call.
    if (answered.has(callId)) continue;
    answered.add(callId);
    await server.request(clientMethods.threadInjectItems, {
      threadId,
      items: [{ type: 'function_call_output', call_id: callId, output: outcome.forModel }],
    });
  }
}
