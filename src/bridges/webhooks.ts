/**
 * Webhook endpoints of chat bridges, served by `agentd serve` under `/bridges/` on its own port.
 * The platform proves itself on each request (a signature or a secret header, checked by the
 * adapter), so these paths skip bearer authentication. Bridges start after the HTTP server
 * listens: they add their endpoint here, and a path with none gets `not_found`.
 */
export type WebhookHandler = (request: Request) => Promise<Response>;

export const webhookPrefix = '/bridges/';

export class WebhookRoutes {
  private readonly handlers = new Map<string, WebhookHandler>();

  add(path: string, handler: WebhookHandler): void {
    if (!path.startsWith(webhookPrefix)) throw new Error(`a bridge webhook lives under ${webhookPrefix}`);
    this.handlers.set(path, handler);
  }

  remove(path: string): void {
    this.handlers.delete(path);
  }

  get(path: string): WebhookHandler | undefined {
    return this.handlers.get(path);
  }
}

/** Largest webhook body read: platforms send small JSON events. */
export const maxWebhookBytes = 1024 * 1024;

/** A JSON answer of a webhook endpoint. */
export function webhookJson(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** A refusal with a stable code, never a stack trace. */
export function webhookError(status: number, code: string, message: string): Response {
  return webhookJson(status, { error: { code, message } });
}
