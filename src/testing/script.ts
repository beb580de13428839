/** What the scripted model answers: the script's vocabulary. */

export type ScriptBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown>; id?: string };

export interface ScriptUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/** One answer of the model: content blocks, streamed as the Messages API streams them. */
export interface ScriptReply {
  /** Shorthand for one text block. */
  text?: string;
  content?: ScriptBlock[];
  /** @default 'tool_use' when the content has a tool_use block, otherwise 'end_turn' */
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence';
  usage?: ScriptUsage;
  /** Milliseconds to wait before the response starts. @default 0 */
  delayMs?: number;
  /** Milliseconds to wait between streamed chunks. @default 0 */
  chunkDelayMs?: number;
  /** Split text into chunks of this many characters when streaming. @default 16 */
  chunkSize?: number;
  /** The model name to report. @default the requested model */
  model?: string;
}

/** An HTTP error answered with Anthropic's error body. */
export interface ScriptError {
  error: {
    status: number;
    /** Anthropic's error type; derived from the status when omitted (429 → rate_limit_error …). */
    type?: string;
    message?: string;
  };
  /** Extra response headers, such as `retry-after`. */
  headers?: Record<string, string>;
  delayMs?: number;
}

export type ScriptTurn = ScriptReply | ScriptError;

/** A request the scripted model received, recorded for assertions. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: MessagesRequestBody | null;
  /** False for side requests that `claude` makes on its own (titles, summaries, quota checks). */
  conversation: boolean;
  receivedAt: number;
}

export interface MessagesRequestBody {
  model?: string;
  stream?: boolean;
  system?: unknown;
  tools?: Array<{ name?: string }>;
  messages?: Array<{ role: string; content: unknown }>;
  [key: string]: unknown;
}

/**
 * A list of turns, used in order by conversation requests, or a function of the request.
 * When the list runs out, the model answers `exhausted` (a short text) so a test fails visibly
 * rather than hanging.
 */
export type Script =
  | ScriptTurn[]
  | ((request: RecordedRequest, index: number) => ScriptTurn | Promise<ScriptTurn>);

export function isScriptError(turn: ScriptTurn): turn is ScriptError {
  return (turn as ScriptError).error !== undefined;
}

/**
 * The text of every block of every message, joined: what the model was shown (a Messages
 * request's `messages`, or a Responses request's `input` items).
 */
export function requestText(request: RecordedRequest): string {
  const parts: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string') parts.push(value);
    else if (Array.isArray(value)) for (const item of value) visit(item);
    else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      if (typeof record.text === 'string') parts.push(record.text);
      if (record.content !== undefined) visit(record.content);
    }
  };
  visit(request.body?.messages ?? (request.body as { input?: unknown } | null)?.input ?? []);
  return parts.join('\n');
}

/** The tool results the request carries back to the model, by tool_use id. */
export function toolResults(
  request: RecordedRequest,
): Array<{ toolUseId: string; content: string; isError: boolean }> {
  const results: Array<{ toolUseId: string; content: string; isError: boolean }> = [];
  for (const message of request.body?.messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Array<Record<string, unknown>>) {
      if (block.type !== 'tool_result') continue;
      const content =
        typeof block.content === 'string'
          ? block.content
          : Array.isArray(block.content)
            ? (block.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('')
            : '';
      results.push({
        toolUseId: String(block.tool_use_id),
        content,
        isError: block.is_error === true,
      });
    }
  }
  return results;
}
