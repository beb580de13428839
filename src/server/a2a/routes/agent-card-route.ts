import { createHash } from 'node:crypto';
import type { AgentCard } from '@a2a-js/sdk';
import type { Context, Hono } from 'hono';
import { agentCardJson, legacyAgentCardJson } from '../agent-card.js';
import { isLegacyVersion, versionHeader } from './call-context.js';

/** The well-known paths of the card: A2A 0.3+ and the older name some clients still fetch. */
export const agentCardPaths = ['/.well-known/agent-card.json', '/.well-known/agent.json'] as const;

/** Where the client reached this server: the request's origin, with a proxy's X-Forwarded-Proto. */
function requestOrigin(c: Context): string {
  const url = new URL(c.req.url);
  const forwarded = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim();
  if (forwarded === 'http' || forwarded === 'https') url.protocol = `${forwarded}:`;
  return url.origin;
}

/** The agent card: v1.0 for clients that ask for it with `A2A-Version`, the v0.3 form otherwise. */
export function registerAgentCardRoutes(app: Hono, card: (origin: string) => AgentCard): void {
  for (const path of agentCardPaths) {
    app.get(path, (c) => {
      const version = c.req.header(versionHeader);
      const current = card(requestOrigin(c));
      const body = JSON.stringify(
        !version || isLegacyVersion(version) ? legacyAgentCardJson(current) : agentCardJson(current),
      );
      const etag = `W/"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
      const headers = { ETag: etag, Vary: versionHeader, 'Cache-Control': 'public, max-age=300' };
      if (c.req.header('if-none-match') === etag) return c.body(null, 304, headers);
      return c.body(body, 200, { ...headers, 'Content-Type': 'application/json' });
    });
  }
}
