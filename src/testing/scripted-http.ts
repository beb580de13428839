import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a scripted server reads of a request before it answers it. */
export interface ParsedRequest<Body> {
  url: URL;
  /** The raw body (empty unless POST). */
  text: string;
  /** The JSON body, null when there is none. */
  body: Body | null;
  /** The headers that have one value. */
  headers: Record<string, string>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a request to a scripted server; null when its body is not JSON (the server answers 400). */
export async function parseRequest<Body>(request: IncomingMessage): Promise<ParsedRequest<Body> | null> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const text = request.method === 'POST' ? await readBody(request) : '';
  let body: Body | null = null;
  if (text) {
    try {
      body = JSON.parse(text) as Body;
    } catch {
      return null;
    }
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers[name] = value;
  }
  return { url, text, body, headers };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}
