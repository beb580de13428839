import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  isScriptError,
  type MessagesRequestBody,
  type RecordedRequest,
  type Script,
  type ScriptBlock,
  type ScriptError,
  type ScriptReply,
  type ScriptTurn,
} from './script.js';
import { parseRequest, sendJson } from './scripted-http.js';

export interface ScriptedModelOptions {
  script: Script;
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 0 (a free port) */
  port?: number;
  /**
   * Tells `claude`'s own side requests (titles, summaries) from the conversation; side requests
   * get a short generic answer and never consume a script turn.
   * @default non-streaming requests, and requests without tools whose system prompt asks for a title or summary
   */
  isSideRequest?: (body: MessagesRequestBody) => boolean;
}

export interface ScriptedModel {
  /** Base URL for `ANTHROPIC_BASE_URL`, such as `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Every request received, side requests included, oldest first. */
  readonly requests: RecordedRequest[];
  /** Conversation requests only (those that consumed or would consume a script turn). */
  conversationRequests(): RecordedRequest[];
  /** Environment for `claude`: base URL and a dummy key. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

const errorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function defaultIsSideRequest(body: MessagesRequestBody): boolean {
  if (body.stream !== true) return true;
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  if (hasTools) return false;
  const system = JSON.stringify(body.system ?? '').toLowerCase();
  return /\btitle\b|summar|topic/.test(system);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function sendError(response: ServerResponse, turn: ScriptError) {
  const type = turn.error.type ?? errorTypes[turn.error.status] ?? 'api_error';
  sendJson(
    response,
    turn.error.status,
    { type: 'error', error: { type, message: turn.error.message ?? `scripted ${type}` } },
    { 'request-id': `req_${randomUUID()}`, ...turn.headers },
  );
}

function blocksOf(reply: ScriptReply): ScriptBlock[] {
  const blocks = [...(reply.content ?? [])];
  if (reply.text !== undefined) blocks.unshift({ type: 'text', text: reply.text });
  return blocks;
}

function usageOf(reply: ScriptReply) {
  return {
    input_tokens: reply.usage?.input_tokens ?? 10,
    output_tokens: reply.usage?.output_tokens ?? 5,
    cache_read_input_tokens: reply.usage?.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: reply.usage?.cache_creation_input_tokens ?? 0,
  };
}

function contentBlock(block: ScriptBlock, index: number) {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: `sig_${index}` };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: block.id ?? `toolu_${randomUUID().replaceAll('-', '')}`,
        name: block.name,
        input: block.input,
      };
  }
}

function stopReasonOf(reply: ScriptReply, blocks: ScriptBlock[]) {
  return reply.stopReason ?? (blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn');
}

function chunksOf(text: string, size: number): string[] {
  if (text.length === 0) return [''];
  const chunks: string[] = [];
  for (let index = 0; index < text.length; index += size) chunks.push(text.slice(index, index + size));
  return chunks;
}

async function sendReply(response: ServerResponse, reply: ScriptReply, body: MessagesRequestBody) {
  const blocks = blocksOf(reply);
  const model = reply.model ?? body.model ?? 'claude-scripted';
  const usage = usageOf(reply);
  const id = `msg_${randomUUID().replaceAll('-', '')}`;
  const content = blocks.map(contentBlock);
  const stopReason = stopReasonOf(reply, blocks);
  if (body.stream !== true) {
    sendJson(response, 200, {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    });
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunkDelay = reply.chunkDelayMs ?? 0;
  const chunkSize = reply.chunkSize ?? 16;
  let closed = false;
  response.on('close', () => {
    closed = true;
  });
  const write = async (type: string, data: Record<string, unknown>, pause = true) => {
    if (closed) return;
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    if (pause && chunkDelay > 0) await sleep(chunkDelay);
  };
  await write('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  for (const [index, block] of content.entries()) {
    if (block.type === 'text') {
      await write('content_block_start', { index, content_block: { type: 'text', text: '' } }, false);
      for (const piece of chunksOf(block.text ?? '', chunkSize)) {
        await write('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      }
    } else if (block.type === 'thinking') {
      await write('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } }, false);
      for (const piece of chunksOf(block.thinking ?? '', chunkSize)) {
        await write('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } });
      }
      await write('content_block_delta', {
        index,
        delta: { type: 'signature_delta', signature: block.signature },
      });
    } else {
      await write('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      await write('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    await write('content_block_stop', { index }, false);
  }
  await write('message_delta', {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  await write('message_stop', {}, false);
  response.end();
}

const sideReply: ScriptReply = { text: 'agentd' };
const exhausted: ScriptReply = { text: 'exhausted: the script has no more turns' };

/**
 * Starts an Anthropic-Messages-API-compatible server on a free loopback port that answers from a
 * script. Point `claude` at it with `ANTHROPIC_BASE_URL` (see `env()`).
 */
export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  const requests: RecordedRequest[] = [];
  const isSide = options.isSideRequest ?? defaultIsSideRequest;
  let turnIndex = 0;

  const nextTurn = async (recorded: RecordedRequest): Promise<ScriptTurn> => {
    const index = turnIndex++;
    if (typeof options.script === 'function') return options.script(recorded, index);
    return options.script[index] ?? exhausted;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const parsed = await parseRequest<MessagesRequestBody>(request);
    if (parsed === null) {
      sendError(response, { error: { status: 400, message: 'malformed JSON body' } });
      return;
    }
    const { url, text, body, headers } = parsed;
    const isMessages = request.method === 'POST' && url.pathname === '/v1/messages';
    const recorded: RecordedRequest = {
      method: request.method ?? 'GET',
      path: url.pathname,
      headers,
      body,
      conversation: isMessages && body !== null && !isSide(body),
      receivedAt: Date.now(),
    };
    requests.push(recorded);

    if (request.method === 'POST' && url.pathname === '/v1/messages/count_tokens') {
      sendJson(response, 200, { input_tokens: Math.ceil(text.length / 4) });
      return;
    }
    if (!isMessages || body === null) {
      sendJson(response, 200, {});
      return;
    }
    const turn = recorded.conversation ? await nextTurn(recorded) : sideReply;
    if (turn.delayMs) await sleep(turn.delayMs);
    if (isScriptError(turn)) sendError(response, turn);
    else await sendReply(response, turn, body);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        sendError(response, { error: { status: 500, message: `scripted model failed: ${String(error)}` } });
      } else response.destroy();
    });
  });
  server.keepAliveTimeout = 1000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host}:${port}`;

  return {
    url,
    requests,
    conversationRequests: () => requests.filter((request) => request.conversation),
    env: () => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'scripted-model-key' }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
