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

export interface ScriptedResponsesOptions {
  /**
   * The same script format as the Anthropic server's: `text`, `thinking` (sent as a reasoning
   * summary) and `tool_use` blocks (sent as function calls, such as Codex's `exec_command` with
   * `{ cmd }`, which `codex` really runs; with `sandbox_permissions: 'require_escalated'` codex asks
   * for approval first), errors by status code, delays.
   */
  script: Script;
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 0 (a free port) */
  port?: number;
}

/** An OpenAI-Responses-API-compatible server that answers from a script. */
export interface ScriptedResponses {
  /** The API's base URL, with `/v1`: `OPENAI_BASE_URL`, such as `http://127.0.0.1:41234/v1`. */
  readonly url: string;
  /** Every request received, oldest first. */
  readonly requests: RecordedRequest[];
  /** `POST /v1/responses` requests only: each one consumed a script turn. */
  conversationRequests(): RecordedRequest[];
  /** Environment for `codex` through agentd: base URL and a dummy key. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

/** A Responses request's body: `input` items instead of `messages`. */
export interface ResponsesRequestBody extends MessagesRequestBody {
  input?: Array<Record<string, unknown>>;
  instructions?: string;
}

const errorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_exceeded',
  500: 'server_error',
  503: 'server_error',
};

const errorCodes: Record<number, string> = {
  401: 'invalid_api_key',
  429: 'rate_limit_exceeded',
  500: 'server_error',
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An HTTP error with OpenAI's error body. */
function sendError(response: ServerResponse, turn: ScriptError) {
  const status = turn.error.status;
  const type = turn.error.type ?? errorTypes[status] ?? 'server_error';
  sendJson(
    response,
    status,
    {
      error: {
        message: turn.error.message ?? `scripted ${type}`,
        type,
        param: null,
        code: errorCodes[status] ?? null,
      },
    },
    { 'x-request-id': `req_${randomUUID()}`, ...turn.headers },
  );
}

function blocksOf(reply: ScriptReply): ScriptBlock[] {
  const blocks = [...(reply.content ?? [])];
  if (reply.text !== undefined) blocks.unshift({ type: 'text', text: reply.text });
  return blocks;
}

function chunksOf(text: string, size: number): string[] {
  if (text.length === 0) return [''];
  const chunks: string[] = [];
  for (let index = 0; index < text.length; index += size) chunks.push(text.slice(index, index + size));
  return chunks;
}

const compactId = () => randomUUID().replaceAll('-', '');

/** One reply as a Responses stream: `response.created`, each output item with its deltas, `response.completed`. */
async function sendReply(response: ServerResponse, reply: ScriptReply, body: ResponsesRequestBody) {
  const id = `resp_${compactId()}`;
  const model = reply.model ?? body.model ?? 'scripted';
  const chunkDelay = reply.chunkDelayMs ?? 0;
  const chunkSize = reply.chunkSize ?? 16;
  let closed = false;
  response.on('close', () => {
    closed = true;
  });
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const write = async (type: string, data: Record<string, unknown>, pause = false) => {
    if (closed) return;
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    if (pause && chunkDelay > 0) await sleep(chunkDelay);
  };
  await write('response.created', { response: { id, object: 'response', model, status: 'in_progress' } });
  for (const [index, block] of blocksOf(reply).entries()) {
    if (block.type === 'text') {
      const itemId = `msg_${compactId()}`;
      const item = { type: 'message', id: itemId, role: 'assistant', status: 'completed' };
      await write('response.output_item.added', { output_index: index, item: { ...item, content: [] } });
      for (const delta of chunksOf(block.text, chunkSize)) {
        await write(
          'response.output_text.delta',
          { output_index: index, item_id: itemId, content_index: 0, delta },
          true,
        );
      }
      await write('response.output_item.done', {
        output_index: index,
        item: { ...item, content: [{ type: 'output_text', text: block.text, annotations: [] }] },
      });
    } else if (block.type === 'thinking') {
      const itemId = `rs_${compactId()}`;
      const item = { type: 'reasoning', id: itemId, summary: [] as unknown[] };
      await write('response.output_item.added', { output_index: index, item });
      for (const delta of chunksOf(block.thinking, chunkSize)) {
        await write(
          'response.reasoning_summary_text.delta',
          { output_index: index, item_id: itemId, summary_index: 0, delta },
          true,
        );
      }
      await write('response.output_item.done', {
        output_index: index,
        item: { ...item, summary: [{ type: 'summary_text', text: block.thinking }] },
      });
    } else {
      const item = {
        type: 'function_call',
        id: `fc_${compactId()}`,
        call_id: block.id ?? `call_${compactId()}`,
        name: block.name,
        arguments: JSON.stringify(block.input),
        status: 'completed',
      };
      await write('response.output_item.added', { output_index: index, item });
      await write('response.output_item.done', { output_index: index, item }, true);
    }
  }
  const input = reply.usage?.input_tokens ?? 10;
  const output = reply.usage?.output_tokens ?? 5;
  const cached = reply.usage?.cache_read_input_tokens ?? 0;
  await write('response.completed', {
    response: {
      id,
      object: 'response',
      model,
      status: 'completed',
      usage: {
        input_tokens: input,
        input_tokens_details: { cached_tokens: cached },
        output_tokens: output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: input + output,
      },
    },
  });
  response.end();
}

const exhausted: ScriptReply = { text: 'exhausted: the script has no more turns' };

/**
 * Starts an OpenAI-Responses-API-compatible server on a free loopback port that answers
 * `POST /v1/responses` from a script, streamed as the Responses API streams. agentd points `codex`
 * at it through `OPENAI_BASE_URL` (see `env()`).
 */
export async function startScriptedResponses(options: ScriptedResponsesOptions): Promise<ScriptedResponses> {
  const requests: RecordedRequest[] = [];
  let turnIndex = 0;
  const nextTurn = async (recorded: RecordedRequest): Promise<ScriptTurn> => {
    const index = turnIndex++;
    if (typeof options.script === 'function') return options.script(recorded, index);
    return options.script[index] ?? exhausted;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const parsed = await parseRequest<ResponsesRequestBody>(request);
    if (parsed === null) {
      sendError(response, { error: { status: 400, message: 'malformed JSON body' } });
      return;
    }
    const { url, body, headers } = parsed;
    const isResponses = request.method === 'POST' && url.pathname === '/v1/responses';
    const recorded: RecordedRequest = {
      method: request.method ?? 'GET',
      path: url.pathname,
      headers,
      body,
      conversation: isResponses && body !== null,
      receivedAt: Date.now(),
    };
    requests.push(recorded);
    if (url.pathname === '/v1/models') {
      sendJson(response, 200, { object: 'list', data: [] });
      return;
    }
    if (!isResponses || body === null) {
      sendError(response, { error: { status: 404, message: `no route ${request.method} ${url.pathname}` } });
      return;
    }
    const turn = await nextTurn(recorded);
    if (turn.delayMs) await sleep(turn.delayMs);
    if (isScriptError(turn)) sendError(response, turn);
    else await sendReply(response, turn, body);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        sendError(response, {
          error: { status: 500, message: `scripted responses failed: ${String(error)}` },
        });
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
  const url = `http://${host}:${port}/v1`;
  return {
    url,
    requests,
    conversationRequests: () => requests.filter((request) => request.conversation),
    env: () => ({ OPENAI_BASE_URL: url, OPENAI_API_KEY: 'scripted-responses-key' }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The outputs of function calls (commands codex ran) the request carries back to the model, by call id. */
export function functionCallOutputs(request: RecordedRequest): Array<{ callId: string; output: string }> {
  const input = (request.body as ResponsesRequestBody | null)?.input ?? [];
  return input
    .filter((item) => item.type === 'function_call_output')
    .map((item) => ({
      callId: String(item.call_id),
      output: typeof item.output === 'string' ? item.output : JSON.stringify(item.output),
    }));
}

/** The text of the user's messages in a Responses request, oldest first. */
export function userTexts(request: RecordedRequest): string[] {
  const input = (request.body as ResponsesRequestBody | null)?.input ?? [];
  const texts: string[] = [];
  for (const item of input) {
    if (item.type !== 'message' || item.role !== 'user' || !Array.isArray(item.content)) continue;
    for (const part of item.content as Array<{ type?: string; text?: string }>) {
      // codex's own context (`<environment_context>` …) travels as user messages too.
      if (part.type !== 'input_text' || typeof part.text !== 'string') continue;
      if (/^<[a-z_]+>[\s\S]*<\/[a-z_]+>$/.test(part.text.trim())) continue;
      texts.push(part.text);
    }
  }
  return texts;
}
