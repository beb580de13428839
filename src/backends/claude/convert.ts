import type { AgentEvent, ModelUsage, TokenUsage } from '../agent-event.js';
import { classifyAssistantError, classifyStatus, errorInfo } from './classify.js';
import { formatToolDetail } from './tool-detail.js';

/** A message from the SDK, read structurally: the SDK's union is wide and grows between versions. */
export interface NativeMessage {
  type: string;
  subtype?: string;
  [key: string]: unknown;
}

type Block = Record<string, unknown>;

const asNumber = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) ? value : 0;
const asString = (value: unknown): string => (typeof value === 'string' ? value : '');
const asRecord = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

function blocksOf(message: NativeMessage): Block[] {
  const content = asRecord(message.message).content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as Block[]) : [];
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined ? '' : JSON.stringify(content);
  return content
    .map((part) => {
      const record = asRecord(part);
      return typeof record.text === 'string' ? record.text : `[${asString(record.type) || 'content'}]`;
    })
    .join('');
}

export function tokenUsage(usage: unknown): TokenUsage {
  const record = asRecord(usage);
  return {
    inputTokens: asNumber(record.input_tokens),
    outputTokens: asNumber(record.output_tokens),
    cacheReadInputTokens: asNumber(record.cache_read_input_tokens),
    cacheCreationInputTokens: asNumber(record.cache_creation_input_tokens),
  };
}

function modelUsage(value: unknown): Record<string, ModelUsage> {
  const usage: Record<string, ModelUsage> = {};
  for (const [model, entry] of Object.entries(asRecord(value))) {
    const record = asRecord(entry);
    usage[model] = {
      inputTokens: asNumber(record.inputTokens),
      outputTokens: asNumber(record.outputTokens),
      cacheReadInputTokens: asNumber(record.cacheReadInputTokens),
      cacheCreationInputTokens: asNumber(record.cacheCreationInputTokens),
      costUsd: asNumber(record.costUSD),
    };
  }
  return usage;
}

function inputIdsOf(message: NativeMessage): string[] {
  if (Array.isArray(message.user_message_uuids)) return message.user_message_uuids.map(String);
  return typeof message.user_message_uuid === 'string' ? [message.user_message_uuid] : [];
}

function native(message: NativeMessage): AgentEvent {
  return { type: 'claude.message', subtype: message.subtype ?? message.type, raw: message };
}

function fromAssistant(message: NativeMessage): AgentEvent[] {
  // A synthetic message that only restates an API error: the turn result carries the error.
  if (typeof message.error === 'string') return [native(message)];
  const messageId = asString(asRecord(message.message).id) || null;
  const parentToolUseId = typeof message.parent_tool_use_id === 'string' ? message.parent_tool_use_id : null;
  const events: AgentEvent[] = [];
  for (const block of blocksOf(message)) {
    if (block.type === 'text' && asString(block.text).length > 0) {
      events.push({ type: 'agent.message', text: asString(block.text), messageId, raw: message });
    } else if (block.type === 'thinking') {
      events.push({ type: 'agent.thinking', thinking: asString(block.thinking), raw: message });
    } else if (
      block.type === 'tool_use' ||
      block.type === 'server_tool_use' ||
      block.type === 'mcp_tool_use'
    ) {
      const name = asString(block.name);
      const input = asRecord(block.input);
      events.push({
        type: 'agent.tool_call',
        toolUseId: asString(block.id),
        name,
        input,
        detail: formatToolDetail(name, input),
        parentToolUseId,
        raw: message,
      });
    }
  }
  return events.length > 0 ? events : [native(message)];
}

function fromUser(message: NativeMessage): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (const block of blocksOf(message)) {
    if (block.type !== 'tool_result') continue;
    events.push({
      type: 'agent.tool_result',
      toolUseId: asString(block.tool_use_id),
      content: toolResultText(block.content),
      isError: block.is_error === true,
      raw: message,
    });
  }
  return events.length > 0 ? events : [native(message)];
}

function fromSystem(message: NativeMessage): AgentEvent[] {
  switch (message.subtype) {
    case 'init':
      return [
        {
          type: 'session.started',
          backend: 'claude',
          sessionId: asString(message.session_id),
          model: asString(message.model),
          tools: Array.isArray(message.tools) ? message.tools.map(String) : [],
          cwd: asString(message.cwd),
          permissionMode: asString(message.permissionMode),
          raw: message,
        },
      ];
    case 'api_retry': {
      const status = typeof message.error_status === 'number' ? message.error_status : undefined;
      // No status at all means no HTTP response: the connection failed.
      const code =
        typeof message.error === 'string' && message.error !== 'unknown'
          ? classifyAssistantError(message.error)
          : status === undefined
            ? 'network'
            : classifyStatus(status);
      return [
        {
          type: 'agent.retry',
          attempt: asNumber(message.attempt),
          maxRetries: asNumber(message.max_retries),
          delayMs: asNumber(message.retry_delay_ms),
          by: 'claude',
          error: errorInfo(
            code,
            status === undefined
              ? `API request failed (${asString(message.error)})`
              : `API error ${status} (${asString(message.error)})`,
            status,
          ),
          raw: message,
        },
      ];
    }
    case 'compact_boundary': {
      const metadata = asRecord(message.compact_metadata);
      return [
        {
          type: 'agent.compacted',
          trigger: metadata.trigger === 'manual' ? 'manual' : 'auto',
          preTokens: asNumber(metadata.pre_tokens),
          postTokens: typeof metadata.post_tokens === 'number' ? metadata.post_tokens : null,
          raw: message,
        },
      ];
    }
    default:
      return [native(message)];
  }
}

function fromResult(message: NativeMessage): AgentEvent[] {
  return [
    {
      type: 'agent.turn.completed',
      subtype: message.subtype ?? 'success',
      isError: message.is_error === true || (message.subtype ?? 'success') !== 'success',
      result: typeof message.result === 'string' ? message.result : null,
      sessionId: asString(message.session_id),
      usage: tokenUsage(message.usage),
      costUsd: asNumber(message.total_cost_usd),
      numTurns: asNumber(message.num_turns),
      durationMs: asNumber(message.duration_ms),
      durationApiMs: asNumber(message.duration_api_ms),
      modelUsage: modelUsage(message.modelUsage),
      inputIds: inputIdsOf(message),
      raw: message,
    },
  ];
}

function fromStreamEvent(message: NativeMessage): AgentEvent[] {
  const event = asRecord(message.event);
  const delta = asRecord(event.delta);
  if (event.type === 'content_block_delta' && delta.type === 'text_delta') {
    return [{ type: 'agent.text_delta', text: asString(delta.text), raw: message }];
  }
  return [native(message)];
}

/** Every SDK message becomes one or more `AgentEvent`s; nothing is dropped. */
export function convertMessage(message: NativeMessage): AgentEvent[] {
  switch (message.type) {
    case 'system':
      return fromSystem(message);
    case 'assistant':
      return fromAssistant(message);
    case 'user':
      return fromUser(message);
    case 'result':
      return fromResult(message);
    case 'stream_event':
      return fromStreamEvent(message);
    case 'command_lifecycle':
      if (
        (message.state === 'queued' || message.state === 'started') &&
        typeof message.command_uuid === 'string'
      ) {
        return [{ type: 'input.delivered', inputId: message.command_uuid, raw: message }];
      }
      return [native(message)];
    default:
      return [native(message)];
  }
}
