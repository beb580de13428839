import { createHmac } from 'node:crypto';

/**
 * Headers of a webhook delivery, after Standard Webhooks: the delivery id (the same on every
 * attempt, for deduplication), the send time in Unix seconds, and the signature over both and the
 * body, so that a captured request cannot be replayed later with a new timestamp.
 */
export const webhookHeaders = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/** `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` under the secret (its UTF-8 bytes). */
export function signWebhook(options: {
  secret: string;
  id: string;
  timestamp: number;
  body: string;
}): string {
  const mac = createHmac('sha256', options.secret)
    .update(`${options.id}.${options.timestamp}.${options.body}`)
    .digest('base64');
  return `v1,${mac}`;
}
