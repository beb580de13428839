import type { ThreadEvent, ThreadItem, Usage } from '@openai/codex-sdk';
import type { AgentEvent, TokenUsage } from '../agent-event.js';

/** Codex's usage, in agentd's words: cached input counts as read from the cache. */
export function codexUsage(usage: Usage | null | undefined): TokenUsage {
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheReadInputTokens: usage?.cached_input_tokens ?? 0,
    cacheCreationInputTokens: usage?.cache_write_input_tokens ?? 0,
  };
}

/** The tool name agentd shows for a Codex item that acts. */
export const codexToolNames = {
  command_execution: 'shell',
  file_change: 'apply_patch',
  web_search: 'web_search',
} as const;

function native(subtype: string, raw: unknown): AgentEvent {
  return { type: 'agent.native', backend: 'codex', subtype, raw };
}

/** A started item: the tool calls, as soon as Codex begins them. */
function started(item: ThreadItem, event: ThreadEvent): AgentEvent[] {
  switch (item.type) {
    case 'command_execution':
      return [
        toolCall(
          item.id,
          codexToolNames.command_execution,
          { command: item.command },
          `shell: ${item.command}`,
          event,
        ),
      ];
    case 'mcp_tool_call':
      return [mcpCall(item, event)];
    case 'web_search':
      return [
        toolCall(
          item.id,
          codexToolNames.web_search,
          { query: item.query },
          `web_search: ${item.query}`,
          event,
        ),
      ];
    default:
      return [];
  }
}

function toolCall(
  id: string,
  name: string,
  input: Record<string, unknown>,
  detail: string,
  raw: unknown,
): AgentEvent {
  return { type: 'agent.tool_call', toolUseId: id, name, input, detail, parentToolUseId: null, raw };
}

function mcpCall(item: Extract<ThreadItem, { type: 'mcp_tool_call' }>, raw: unknown): AgentEvent {
  const name = `mcp__${item.server}__${item.tool}`;
  const input =
    item.arguments && typeof item.arguments === 'object' ? (item.arguments as Record<string, unknown>) : {};
  return toolCall(item.id, name, input, name, raw);
}

/** A completed item: messages, reasoning, and the results of the tool calls begun before. */
function completed(item: ThreadItem, event: ThreadEvent, seen: Set<string>): AgentEvent[] {
  switch (item.type) {
    case 'agent_message':
      return [{ type: 'agent.message', text: item.text, messageId: item.id, raw: event }];
    case 'reasoning':
      return [{ type: 'agent.thinking', thinking: item.text, raw: event }];
    case 'command_execution': {
      const call = seen.has(item.id) ? [] : started(item, event);
      const failed = item.status === 'failed' || (item.exit_code !== undefined && item.exit_code !== 0);
      const content = item.exit_code === undefined ? item.aggregated_output : `${item.aggregated_output}`;
      return [
        ...call,
        { type: 'agent.tool_result', toolUseId: item.id, content, isError: failed, raw: event },
      ];
    }
    case 'file_change': {
      const detail = item.changes.map((change) => `${change.kind} ${change.path}`).join(', ');
      return [
        toolCall(
          item.id,
          codexToolNames.file_change,
          { changes: item.changes },
          `apply_patch: ${detail}`,
          event,
        ),
        {
          type: 'agent.tool_result',
          toolUseId: item.id,
          content: detail,
          isError: item.status === 'failed',
          raw: event,
        },
      ];
    }
    case 'mcp_tool_call': {
      const call = seen.has(item.id) ? [] : [mcpCall(item, event)];
      const content = item.error
        ? item.error.message
        : (item.result?.content ?? [])
            .map((block) =>
              'text' in block && typeof block.text === 'string' ? block.text : `[${block.type}]`,
            )
            .join('');
      return [
        ...call,
        {
          type: 'agent.tool_result',
          toolUseId: item.id,
          content,
          isError: item.status === 'failed',
          raw: event,
        },
      ];
    }
    case 'web_search':
      return seen.has(item.id) ? [] : started(item, event);
    case 'error':
      return [native('warning', event)];
    case 'todo_list':
      return [native('todo_list', event)];
  }
}

/**
 * Turns Codex's thread events into agentd's events, remembering which tool calls it already reported
 * (started items) so that each is reported once. Turn boundaries and failures are the session's.
 */
export class CodexEventConverter {
  private readonly seen = new Set<string>();

  convert(event: ThreadEvent): AgentEvent[] {
    switch (event.type) {
      case 'item.started': {
        const events = started(event.item, event);
        if (events.length > 0) this.seen.add(event.item.id);
        return events;
      }
      case 'item.updated':
        return event.item.type === 'todo_list' ? [native('todo_list', event)] : [];
      case 'item.completed':
        return completed(event.item, event, this.seen);
      default:
        return [];
    }
  }
}
