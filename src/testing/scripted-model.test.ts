import { afterEach, describe, expect, it } from 'vitest';
import { type RecordedRequest, requestText, type Script, toolResults } from './script.js';
import { type ScriptedModel, type ScriptedModelOptions, startScriptedModel } from './scripted-model.js';

let model: ScriptedModel | undefined;

afterEach(async () => {
  await model?.close();
  model = undefined;
});

async function start(script: Script, options: Partial<ScriptedModelOptions> = {}): Promise<ScriptedModel> {
  model = await startScriptedModel({ script, ...options });
  return model;
}

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim().length > 0)
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? 'null') as Record<string, unknown>;
      return { event, data };
    });
}

const conversation = (messages: Array<{ role: string; content: unknown }>, extra = {}) => ({
  model: 'claude-test-1',
  max_tokens: 1024,
  stream: true,
  tools: [{ name: 'Bash', input_schema: { type: 'object' } }],
  messages,
  ...extra,
});

function post(url: string, body: unknown, path = '/v1/messages'): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'scripted-model-key' },
    body: JSON.stringify(body),
  });
}

/** Rebuilds the text of each content block from a stream, as a client would. */
function assembleText(events: SseEvent[]): string[] {
  const texts: string[] = [];
  for (const { data } of events) {
    const index = data.index as number;
    if (data.type === 'content_block_start') texts[index] = '';
    const delta = data.delta as { type?: string; text?: string } | undefined;
    if (data.type === 'content_block_delta' && delta?.type === 'text_delta') texts[index] += delta.text ?? '';
  }
  return texts;
}

describe('startScriptedModel', () => {
  it('streams a text reply as Messages API server-sent events', async () => {
    const { url } = await start([{ text: 'Hello from the script, in chunks.', chunkSize: 8 }]);
    const response = await post(url, conversation([{ role: 'user', content: 'hi' }]));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = parseSse(await response.text());
    expect(events.map((event) => event.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const event of events) expect(event.data.type).toBe(event.event);
    expect(assembleText(events)).toEqual(['Hello from the script, in chunks.']);
    const start_ = events[0]!.data.message as Record<string, unknown>;
    expect(start_).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-test-1' });
    expect(String(start_.id)).toMatch(/^msg_/);
    expect(events.at(-2)!.data).toMatchObject({
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: 5 },
    });
  });

  it('streams thinking and tool_use blocks, and stops for tool use', async () => {
    const { url } = await start([
      {
        content: [
          { type: 'thinking', thinking: 'list it' },
          { type: 'tool_use', id: 'toolu_fixed', name: 'Bash', input: { command: 'ls' } },
        ],
      },
    ]);
    const events = parseSse(await (await post(url, conversation([{ role: 'user', content: 'go' }]))).text());
    const starts = events.filter((event) => event.event === 'content_block_start').map((event) => event.data);
    expect(starts).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_fixed', name: 'Bash', input: {} },
      },
    ]);
    const deltas = events
      .filter((event) => event.event === 'content_block_delta')
      .map((event) => event.data.delta);
    expect(deltas).toEqual([
      { type: 'thinking_delta', thinking: 'list it' },
      { type: 'signature_delta', signature: 'sig_0' },
      { type: 'input_json_delta', partial_json: '{"command":"ls"}' },
    ]);
    expect(events.find((event) => event.event === 'message_delta')!.data).toMatchObject({
      delta: { stop_reason: 'tool_use' },
    });
  });

  it('answers a non-streaming conversation request with one JSON message', async () => {
    const { url } = await start(
      [{ text: 'whole', usage: { input_tokens: 7, output_tokens: 3, cache_read_input_tokens: 100 } }],
      { isSideRequest: () => false },
    );
    const response = await post(url, conversation([{ role: 'user', content: 'hi' }], { stream: false }));
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-test-1',
      content: [{ type: 'text', text: 'whole' }],
      stop_reason: 'end_turn',
      usage: {
        input_tokens: 7,
        output_tokens: 3,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 0,
      },
    });
  });

  it('answers a scripted error with its status and an Anthropic error body', async () => {
    const { url } = await start([
      { error: { status: 429 }, headers: { 'retry-after': '7' } },
      { error: { status: 401, message: 'invalid x-api-key' } },
      { error: { status: 529 } },
      { error: { status: 418, type: 'teapot_error' } },
    ]);
    const body = conversation([{ role: 'user', content: 'hi' }]);

    const rateLimited = await post(url, body);
    expect(rateLimited.status).toBe(429);
    expect(rateLimited.headers.get('retry-after')).toBe('7');
    expect(rateLimited.headers.get('request-id')).toMatch(/^req_/);
    expect(await rateLimited.json()).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'scripted rate_limit_error' },
    });

    const unauthorized = await post(url, body);
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });

    const overloaded = await post(url, body);
    expect(overloaded.status).toBe(529);
    expect(((await overloaded.json()) as { error: { type: string } }).error.type).toBe('overloaded_error');

    const custom = await post(url, body);
    expect(custom.status).toBe(418);
    expect(((await custom.json()) as { error: { type: string } }).error.type).toBe('teapot_error');
  });

  it('counts tokens without consuming a turn', async () => {
    const server = await start([{ text: 'first turn' }]);
    const response = await post(
      server.url,
      conversation([{ role: 'user', content: 'x'.repeat(400) }]),
      '/v1/messages/count_tokens',
    );
    expect(response.status).toBe(200);
    const { input_tokens } = (await response.json()) as { input_tokens: number };
    expect(input_tokens).toBeGreaterThan(100);
    const events = parseSse(
      await (await post(server.url, conversation([{ role: 'user', content: 'hi' }]))).text(),
    );
    expect(assembleText(events)).toEqual(['first turn']);
    expect(server.conversationRequests()).toHaveLength(1);
  });

  it("side requests (claude's titles, non-streaming calls) get a generic answer and do not use up turns", async () => {
    const server = await start([{ text: 'the real answer' }]);
    const title = await post(server.url, {
      model: 'claude-haiku',
      stream: true,
      system: [{ type: 'text', text: 'Generate a concise title for this conversation.' }],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(assembleText(parseSse(await title.text()))).toEqual(['agentd']);
    const quota = await post(server.url, {
      model: 'claude-haiku',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'quota' }],
    });
    expect(((await quota.json()) as { content: unknown }).content).toEqual([
      { type: 'text', text: 'agentd' },
    ]);

    const answer = await post(server.url, conversation([{ role: 'user', content: 'hi' }]));
    expect(assembleText(parseSse(await answer.text()))).toEqual(['the real answer']);
    expect(server.requests.map((request) => request.conversation)).toEqual([false, false, true]);
    expect(server.conversationRequests()).toHaveLength(1);
  });

  it('answers "exhausted" once the script runs out, instead of hanging', async () => {
    const { url } = await start([]);
    const events = parseSse(await (await post(url, conversation([{ role: 'user', content: 'hi' }]))).text());
    expect(assembleText(events)[0]).toMatch(/^exhausted/);
  });

  it('a function script sees each conversation request and its index', async () => {
    const seen: Array<{ index: number; text: string }> = [];
    const server = await start(async (request, index) => {
      seen.push({ index, text: requestText(request) });
      const results = toolResults(request);
      if (results.length > 0)
        return { text: `got ${results[0]!.content}${results[0]!.isError ? ' (error)' : ''}` };
      return index === 0 ? { text: 'first' } : { error: { status: 500 } };
    });
    const first = await post(server.url, conversation([{ role: 'user', content: 'one' }]));
    expect(assembleText(parseSse(await first.text()))).toEqual(['first']);
    const second = await post(server.url, conversation([{ role: 'user', content: 'two' }]));
    expect(second.status).toBe(500);
    await second.body?.cancel();
    const third = await post(
      server.url,
      conversation([
        { role: 'user', content: 'three' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [{ type: 'text', text: 'out' }],
              is_error: true,
            },
          ],
        },
      ]),
    );
    expect(assembleText(parseSse(await third.text()))).toEqual(['got out (error)']);
    expect(seen.map((entry) => entry.index)).toEqual([0, 1, 2]);
    expect(seen[0]!.text).toBe('one');
  });

  it('records every request with method, path, headers and body', async () => {
    const server = await start([{ text: 'ok' }]);
    await (await fetch(`${server.url}/api/hello`, { method: 'HEAD' })).text();
    const body = conversation([{ role: 'user', content: [{ type: 'text', text: 'recorded prompt' }] }]);
    await (await post(server.url, body)).text();
    const [hello, message] = server.requests as [RecordedRequest, RecordedRequest];
    expect(hello).toMatchObject({ method: 'HEAD', path: '/api/hello', body: null, conversation: false });
    expect(message).toMatchObject({ method: 'POST', path: '/v1/messages', conversation: true, body });
    expect(message.headers['x-api-key']).toBe('scripted-model-key');
    expect(message.receivedAt).toBeGreaterThanOrEqual(hello.receivedAt);
    expect(requestText(message)).toBe('recorded prompt');
  });

  it('answers malformed JSON with a 400 invalid_request_error', async () => {
    const { url } = await start([]);
    const response = await fetch(`${url}/v1/messages`, { method: 'POST', body: '{not json' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'malformed JSON body' },
    });
  });

  it('a script function that throws answers 500 with the reason', async () => {
    const { url } = await start(() => {
      throw new Error('bad script');
    });
    const response = await post(url, conversation([{ role: 'user', content: 'hi' }]));
    expect(response.status).toBe(500);
    expect(JSON.stringify(await response.json())).toContain('bad script');
  });

  it('env() points a client at the server with a dummy key', async () => {
    const server = await start([]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.env()).toEqual({ ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'scripted-model-key' });
  });
});

describe('toolResults and requestText', () => {
  const request = (messages: Array<{ role: string; content: unknown }>): RecordedRequest => ({
    method: 'POST',
    path: '/v1/messages',
    headers: {},
    body: { messages },
    conversation: true,
    receivedAt: 0,
  });

  it('toolResults reads string and array contents and the error flag', () => {
    const recorded = request([
      { role: 'user', content: 'start' },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'plain' },
          {
            type: 'tool_result',
            tool_use_id: 'b',
            content: [
              { type: 'text', text: 'x' },
              { type: 'text', text: 'y' },
            ],
            is_error: true,
          },
          { type: 'text', text: 'not a result' },
        ],
      },
    ]);
    expect(toolResults(recorded)).toEqual([
      { toolUseId: 'a', content: 'plain', isError: false },
      { toolUseId: 'b', content: 'xy', isError: true },
    ]);
  });

  it('requestText joins every text of every message, tool results included', () => {
    const recorded = request([
      { role: 'user', content: 'first' },
      { role: 'assistant', content: [{ type: 'text', text: 'second' }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'third' }] }],
      },
    ]);
    expect(requestText(recorded)).toBe('first\nsecond\nthird');
  });
});
