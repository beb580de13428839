import type { AgentEvent, TokenUsage } from '../agent-event.js';
import { innerCommand } from './command-line.js';
import type { ThreadItem, TokenUsageBreakdown } from './protocol.js';

/** Codex's usage, in agentd's words: cached input counts as read from the cache. */
export function codexUsage(usage: TokenUsageBreakdown | null | undefined): TokenUsage {
  return {
    inputTokens: usage?.inputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    cacheReadInputTokens: usage?.cachedInputTokens ?? 0,
    cacheCreationInputTokens: usage?.cacheWriteInputTokens ?? 0,
  };
}

export function addUsage(total: TokenUsage, more: TokenUsage): TokenUsage {
  return {
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    cacheReadInputTokens: total.cacheReadInputTokens + more.cacheReadInputTokens,
    cacheCreationInputTokens: total.cacheCreationInputTokens + more.cacheCreationInputTokens,
  };
}

/** The tool name agentd shows (and permission rules name) for a Codex item that acts. */
export const codexToolNames = {
  commandExecution: 'shell',
  fileChange: 'apply_patch',
  webSearch: 'web_search',
} as const;

function native(subtype: string, raw: unknown): AgentEvent {
  return { type: 'agent.native', backend: 'codex', subtype, raw };
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

type Item<T extends ThreadItem['type']> = Extract<ThreadItem, { type: T }>;

/** A file change's paths, one line: `update src/a.ts, add b.txt`. */
export function changeSummary(item: Item<'fileChange'>): string {
  return item.changes.map((change) => `${change.kind.type} ${change.path}`).join(', ');
}

/** The tool call an acting item stands for, or null for an item that does not act. */
function callOf(item: ThreadItem, raw: unknown): AgentEvent | null {
  switch (item.type) {
    case 'commandExecution': {
      const command = innerCommand(item.command);
      return toolCall(
        item.id,
        codexToolNames.commandExecution,
        { command, cwd: item.cwd },
        `shell: ${command}`,
        raw,
      );
    }
    case 'fileChange':
      return toolCall(
        item.id,
        codexToolNames.fileChange,
        { changes: item.changes.map((change) => ({ path: change.path, kind: change.kind.type })) },
        `apply_patch: ${changeSummary(item)}`,
        raw,
      );
    case 'mcpToolCall': {
      const name = `mcp__${item.server}__${item.tool}`;
      const input =
        item.arguments && typeof item.arguments === 'object' && !Array.isArray(item.arguments)
          ? (item.arguments as Record<string, unknown>)
          : {};
      return toolCall(item.id, name, input, name, raw);
    }
    case 'webSearch':
      return item.query
        ? toolCall(item.id, codexToolNames.webSearch, { query: item.query }, `web_search: ${item.query}`, raw)
        : null;
    default:
      return null;
  }
}

function result(id: string, content: string, isError: boolean, raw: unknown): AgentEvent {
  return { type: 'agent.tool_result', toolUseId: id, content, isError, raw };
}

function mcpContent(item: Item<'mcpToolCall'>): string {
  if (item.error) return item.error.message;
  return (item.result?.content ?? [])
    .map((block) => {
      const { type, text } = (block ?? {}) as { type?: unknown; text?: unknown };
      return typeof text === 'string' ? text : `[${String(type)}]`;
    })
    .join('');
}

/**
 * Turns the app-server's item notifications into agentd's events, remembering which tool calls it
 * already reported (at `item/started`) so that each is reported once. Turn boundaries, usage and
 * failures are the session's.
 */
export class CodexEventConverter {
  private readonly seen = new Set<string>();

  started(item: ThreadItem, raw: unknown): AgentEvent[] {
    const call = callOf(item, raw);
    if (!call) return [];
    this.seen.add(item.id);
    return [call];
  }

  completed(item: ThreadItem, raw: unknown): AgentEvent[] {
    const call = this.seen.has(item.id) ? null : callOf(item, raw);
    if (call) this.seen.add(item.id);
    const calls = call ? [call] : [];
    switch (item.type) {
      case 'userMessage':
        return [];
      case 'agentMessage':
        return [{ type: 'agent.message', text: item.text, messageId: item.id, raw }];
      case 'reasoning': {
        const thinking = [...item.summary, ...item.content].join('\n');
        return thinking ? [{ type: 'agent.thinking', thinking, raw }] : [];
      }
      case 'commandExecution': {
        const failed =
          item.status === 'failed' ||
          item.status === 'declined' ||
          (item.exitCode !== null && item.exitCode !== 0);
        const content = item.aggregatedOutput ?? (item.status === 'declined' ? 'declined' : '');
        return [...calls, result(item.id, content, failed, raw)];
      }
      case 'fileChange': {
        const failed = item.status === 'failed' || item.status === 'declined';
        const content = item.status === 'declined' ? `declined: ${changeSummary(item)}` : changeSummary(item);
        return [...calls, result(item.id, content, failed, raw)];
      }
      case 'mcpToolCall':
        return [...calls, result(item.id, mcpContent(item), item.status === 'failed', raw)];
      case 'webSearch':
        return calls;
      case 'plan':
        return [native('plan', raw)];
      case 'contextCompaction':
        return [native('context_compaction', raw)];
      default:
        return [native(`item.${(item as { type: string }).type}`, raw)];
    }
  }
}
