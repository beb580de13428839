import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../agent-event.js';
import { convertMessage, type NativeMessage, tokenUsage } from './convert.js';

// Shapes below are trimmed copies of what `claude` 2.1.332 sent through the SDK against the
// scripted model server; fields the conversion does not read are mostly left out.
const sessionId = 'd680c9ff-b200-4ead-a2fc-6f2a159ce099';

function only(message: NativeMessage): AgentEvent {
  const events = convertMessage(message);
  expect(events).toHaveLength(1);
  return events[0]!;
}

function assistant(content: unknown[], extra: Record<string, unknown> = {}): NativeMessage {
  return {
    type: 'assistant',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-5-5',
      content,
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: 'b3cb1e34-5ae0-4cc1-a8e5-14e9ba14fb29',
    ...extra,
  };
}

function toolResultMessage(block: Record<string, unknown>): NativeMessage {
  return {
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', ...block }] },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: '0479e8af-b478-4353-bb8b-b5de6e6261de',
  };
}

function apiRetry(status: number | null, error: string): NativeMessage {
  return {
    type: 'system',
    subtype: 'api_retry',
    attempt: 2,
    max_retries: 3,
    retry_delay_ms: 1040,
    error_status: status,
    error,
    session_id: sessionId,
    uuid: 'd93702bd-95ee-4456-80f9-f9a1194b25d4',
  };
}

const successResult: NativeMessage = {
  type: 'result',
  subtype: 'success',
  is_error: false,
  duration_ms: 171,
  duration_api_ms: 50,
  num_turns: 2,
  result: 'Hello there, world.',
  stop_reason: 'end_turn',
  session_id: sessionId,
  total_cost_usd: 0.00028,
  usage: {
    input_tokens: 20,
    output_tokens: 10,
    cache_read_input_tokens: 300,
    cache_creation_input_tokens: 40,
    output_tokens_details: { thinking_tokens: 0 },
    service_tier: 'standard',
  },
  modelUsage: {
    'claude-opus-5-5': {
      inputTokens: 20,
      outputTokens: 10,
      cacheReadInputTokens: 300,
      cacheCreationInputTokens: 40,
      webSearchRequests: 0,
      costUSD: 0.00028,
      contextWindow: 1_000_000,
    },
  },
  permission_denials: [],
  terminal_reason: 'completed',
  user_message_uuid: 'bb475323-8770-4b63-ab54-334954fbed1d',
  user_message_uuids: ['bb475323-8770-4b63-ab54-334954fbed1d', '5e46b947-36d1-427d-a918-87b45db40450'],
  uuid: 'b4213e0c-1911-4d0b-9250-f1ee8eaa106c',
};

describe('convertMessage', () => {
  it('system init becomes session.started naming the backend, with model, tools, cwd and permission mode', () => {
    const message: NativeMessage = {
      type: 'system',
      subtype: 'init',
      cwd: '/tmp/work',
      session_id: sessionId,
      tools: ['Task', 'Bash', 'Write'],
      mcp_servers: [],
      model: 'claude-opus-5-5',
      permissionMode: 'acceptEdits',
      apiKeySource: 'ANTHROPIC_API_KEY',
      claude_code_version: '2.1.332',
      uuid: 'f8e6f581-ed69-4900-98c6-739148de475f',
    };
    expect(only(message)).toEqual({
      type: 'session.started',
      backend: 'claude',
      sessionId,
      model: 'claude-opus-5-5',
      tools: ['Task', 'Bash', 'Write'],
      cwd: '/tmp/work',
      permissionMode: 'acceptEdits',
      raw: message,
    });
  });

  it('assistant text becomes agent.message with the API message id', () => {
    const message = assistant([{ type: 'text', text: 'Let me look.' }]);
    expect(only(message)).toEqual({
      type: 'agent.message',
      text: 'Let me look.',
      messageId: 'msg_1',
      raw: message,
    });
  });

  it('assistant thinking becomes agent.thinking', () => {
    const message = assistant([{ type: 'thinking', thinking: 'hmm, a list', signature: 'sig_0' }]);
    expect(only(message)).toEqual({ type: 'agent.thinking', thinking: 'hmm, a list', raw: message });
  });

  it('assistant tool_use becomes agent.tool_call with a one-line detail', () => {
    const message = assistant([
      { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls -la', description: 'list' } },
    ]);
    expect(only(message)).toEqual({
      type: 'agent.tool_call',
      toolUseId: 'toolu_1',
      name: 'Bash',
      input: { command: 'ls -la', description: 'list' },
      detail: 'Bash: ls -la',
      parentToolUseId: null,
      raw: message,
    });
  });

  it('a tool call made by a subagent carries its parent tool use id', () => {
    const message = assistant(
      [{ type: 'tool_use', id: 'toolu_2', name: 'Read', input: { file_path: 'src/index.ts' } }],
      { parent_tool_use_id: 'toolu_task' },
    );
    expect(only(message)).toMatchObject({
      type: 'agent.tool_call',
      detail: 'Read: src/index.ts',
      parentToolUseId: 'toolu_task',
    });
  });

  it('an assistant message with several blocks becomes one event per block, in order', () => {
    const message = assistant([
      { type: 'thinking', thinking: 'plan' },
      { type: 'text', text: 'Writing it.' },
      { type: 'tool_use', id: 'toolu_3', name: 'Write', input: { file_path: 'a.txt', content: 'x' } },
    ]);
    const events = convertMessage(message);
    expect(events.map((event) => event.type)).toEqual(['agent.thinking', 'agent.message', 'agent.tool_call']);
    for (const event of events) expect(event.raw).toBe(message);
  });

  it('a synthetic assistant message restating an API error stays a claude.message', () => {
    const message = assistant([{ type: 'text', text: 'API Error: 500 scripted api_error.' }], {
      error: 'server_error',
      is_api_error_message: true,
      api_error_status: 500,
    });
    expect(only(message)).toEqual({ type: 'claude.message', subtype: 'assistant', raw: message });
  });

  it('an assistant message with only empty text stays a claude.message', () => {
    const message = assistant([{ type: 'text', text: '' }]);
    expect(only(message)).toEqual({ type: 'claude.message', subtype: 'assistant', raw: message });
  });

  it('a string tool_result becomes agent.tool_result', () => {
    const message = toolResultMessage({ content: 'total 8\ndrwx------ .', is_error: false });
    expect(only(message)).toEqual({
      type: 'agent.tool_result',
      toolUseId: 'toolu_1',
      content: 'total 8\ndrwx------ .',
      isError: false,
      raw: message,
    });
  });

  it('an array tool_result joins its text parts and names other parts', () => {
    const message = toolResultMessage({
      content: [
        { type: 'text', text: 'first ' },
        { type: 'image', source: { type: 'base64', data: 'AAAA' } },
        { type: 'text', text: ' last' },
      ],
    });
    expect(only(message)).toMatchObject({
      type: 'agent.tool_result',
      content: 'first [image] last',
      isError: false,
    });
  });

  it('a tool_result with is_error becomes an error agent.tool_result', () => {
    const message = toolResultMessage({
      content: '<tool_use_error>Error: No such tool available: Bash.</tool_use_error>',
      is_error: true,
    });
    expect(only(message)).toMatchObject({ type: 'agent.tool_result', isError: true });
  });

  it('a user message without tool results (an interruption note) stays a claude.message', () => {
    const message: NativeMessage = {
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] },
      parent_tool_use_id: null,
      session_id: sessionId,
    };
    expect(only(message)).toEqual({ type: 'claude.message', subtype: 'user', raw: message });
  });

  it('a stream_event text delta becomes agent.text_delta', () => {
    const message: NativeMessage = {
      type: 'stream_event',
      event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } },
      session_id: sessionId,
      parent_tool_use_id: null,
      uuid: '9be68788-e0db-429f-b638-aba1c95b62f2',
    };
    expect(only(message)).toEqual({ type: 'agent.text_delta', text: 'Hel', raw: message });
  });

  it('other stream events (thinking deltas, message_start) stay claude.message', () => {
    const thinking: NativeMessage = {
      type: 'stream_event',
      event: { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } },
    };
    const start: NativeMessage = { type: 'stream_event', event: { type: 'message_start', message: {} } };
    expect(only(thinking)).toEqual({ type: 'claude.message', subtype: 'stream_event', raw: thinking });
    expect(only(start)).toEqual({ type: 'claude.message', subtype: 'stream_event', raw: start });
  });

  it.each([
    [401, 'authentication_failed', 'authentication', false],
    [429, 'rate_limit', 'rate_limit', true],
    [529, 'overloaded', 'overloaded', true],
    [500, 'server_error', 'server_error', true],
    [503, 'unknown', 'server_error', true],
    [null, 'unknown', 'network', true],
  ] as const)(
    'api_retry with status %s (%s) becomes agent.retry by claude: %s',
    (status, error, code, transient) => {
      const message = apiRetry(status, error);
      const event = only(message);
      expect(event).toMatchObject({
        type: 'agent.retry',
        attempt: 2,
        maxRetries: 3,
        delayMs: 1040,
        by: 'claude',
        error: { code, transient },
        raw: message,
      });
      if (event.type !== 'agent.retry') throw new Error('unreachable');
      if (status === null) expect(event.error).not.toHaveProperty('status');
      else expect(event.error.status).toBe(status);
    },
  );

  it('compact_boundary becomes agent.compacted with its token counts', () => {
    const message: NativeMessage = {
      type: 'system',
      subtype: 'compact_boundary',
      compact_metadata: { trigger: 'manual', pre_tokens: 150_000, post_tokens: 12_000, duration_ms: 900 },
      session_id: sessionId,
    };
    expect(only(message)).toEqual({
      type: 'agent.compacted',
      trigger: 'manual',
      preTokens: 150_000,
      postTokens: 12_000,
      raw: message,
    });
  });

  it('an automatic compaction without post_tokens has postTokens null', () => {
    const message: NativeMessage = {
      type: 'system',
      subtype: 'compact_boundary',
      compact_metadata: { trigger: 'auto', pre_tokens: 180_000 },
    };
    expect(only(message)).toMatchObject({ type: 'agent.compacted', trigger: 'auto', postTokens: null });
  });

  it('a successful result becomes agent.turn.completed with usage, cost, turns, model usage and input ids', () => {
    expect(only(successResult)).toEqual({
      type: 'agent.turn.completed',
      subtype: 'success',
      isError: false,
      result: 'Hello there, world.',
      sessionId,
      usage: {
        inputTokens: 20,
        outputTokens: 10,
        cacheReadInputTokens: 300,
        cacheCreationInputTokens: 40,
      },
      costUsd: 0.00028,
      numTurns: 2,
      durationMs: 171,
      durationApiMs: 50,
      modelUsage: {
        'claude-opus-5-5': {
          inputTokens: 20,
          outputTokens: 10,
          cacheReadInputTokens: 300,
          cacheCreationInputTokens: 40,
          costUsd: 0.00028,
        },
      },
      inputIds: ['bb475323-8770-4b63-ab54-334954fbed1d', '5e46b947-36d1-427d-a918-87b45db40450'],
      raw: successResult,
    });
  });

  it('a result with only user_message_uuid reports that one input id', () => {
    const { user_message_uuids: _ignored, ...message } = successResult;
    expect(only(message as NativeMessage)).toMatchObject({
      inputIds: ['bb475323-8770-4b63-ab54-334954fbed1d'],
    });
  });

  it('a "success" result flagged is_error (an API error) is an error turn', () => {
    const message: NativeMessage = {
      ...successResult,
      is_error: true,
      result: 'API Error: 500 scripted api_error.',
      api_error_status: 500,
      terminal_reason: 'api_error',
    };
    expect(only(message)).toMatchObject({
      type: 'agent.turn.completed',
      subtype: 'success',
      isError: true,
      result: 'API Error: 500 scripted api_error.',
    });
  });

  it.each(['error_max_turns', 'error_during_execution', 'error_max_budget_usd'])(
    'a %s result is an error turn with no result text',
    (subtype) => {
      const message: NativeMessage = {
        type: 'result',
        subtype,
        is_error: true,
        num_turns: 4,
        session_id: sessionId,
        total_cost_usd: 0.5,
        usage: { input_tokens: 1, output_tokens: 2 },
        modelUsage: {},
        errors: ['something'],
        user_message_uuids: ['u1'],
      };
      expect(only(message)).toMatchObject({
        type: 'agent.turn.completed',
        subtype,
        isError: true,
        result: null,
        numTurns: 4,
        costUsd: 0.5,
        usage: { inputTokens: 1, outputTokens: 2, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
        modelUsage: {},
        inputIds: ['u1'],
      });
    },
  );

  it.each(['queued', 'started'])('command_lifecycle %s becomes input.delivered', (state) => {
    const message: NativeMessage = {
      type: 'command_lifecycle',
      command_uuid: '5e46b947-36d1-427d-a918-87b45db40450',
      state,
      uuid: '0bec8237-41cd-41a2-804a-4a94b3a915dc',
      session_id: sessionId,
    };
    expect(only(message)).toEqual({
      type: 'input.delivered',
      inputId: '5e46b947-36d1-427d-a918-87b45db40450',
      raw: message,
    });
  });

  it('a command_lifecycle of another state stays a claude.message', () => {
    const message: NativeMessage = { type: 'command_lifecycle', command_uuid: 'c1', state: 'completed' };
    expect(only(message)).toEqual({ type: 'claude.message', subtype: 'command_lifecycle', raw: message });
  });

  it('unknown messages are kept whole as claude.message, named by subtype or type', () => {
    const status: NativeMessage = { type: 'system', subtype: 'status', status: 'requesting' };
    const future: NativeMessage = { type: 'rate_limit_event', info: { utilization: 0.5 } };
    expect(only(status)).toEqual({ type: 'claude.message', subtype: 'status', raw: status });
    expect(only(future)).toEqual({ type: 'claude.message', subtype: 'rate_limit_event', raw: future });
  });
});

describe('tokenUsage', () => {
  it('reads the API usage fields and treats missing or malformed ones as 0', () => {
    expect(tokenUsage({ input_tokens: 3, output_tokens: 'x', cache_read_input_tokens: Number.NaN })).toEqual({
      inputTokens: 3,
      outputTokens: 0,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
    });
    expect(tokenUsage(undefined)).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
    });
  });
});
