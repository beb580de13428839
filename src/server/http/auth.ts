import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { ownerPrincipal } from '../../runtime/runtime-context.js';
import { errorJson, unauthorized } from './errors.js';

/** Probes and the agent card must work without a token: orchestrators and A2A clients fetch them first. */
export const publicPaths = new Set([
  '/health/live',
  '/health/ready',
  '/.well-known/agent-card.json',
  '/.well-known/agent.json',
]);

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Bearer-token authentication. With no tokens configured every request passes (serve refuses to
 * listen beyond loopback like that unless told `--insecure`). Tokens are compared as digests in
 * constant time, and a refused request never reaches a route, so it changes nothing.
 */
export function bearerAuth(tokens: readonly string[]): MiddlewareHandler {
  const digests = tokens.map(digest);
  return async (context, next) => {
    if (digests.length === 0 || publicPaths.has(context.req.path)) return next();
    const header = context.req.header('authorization');
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) {
      context.header('WWW-Authenticate', 'Bearer realm="agentd"');
      return errorJson(context, unauthorized('missing bearer token: send "Authorization: Bearer <token>"'));
    }
    const presented = digest(match[1]!);
    if (!digests.some((candidate) => timingSafeEqual(candidate, presented))) {
      context.header('WWW-Authenticate', 'Bearer realm="agentd", error="invalid_token"');
      return errorJson(context, unauthorized('invalid bearer token'));
    }
    return next();
  };
}

/**
 * The principal a request acts as, passed to the runtime as its actor: what the auth middleware
 * set (`principal`), else the owner (no tokens configured, or a token that stands for the operator).
 */
export function principalOf(context: Context): string {
  const principal: unknown = context.get('principal');
  return typeof principal === 'string' && principal !== '' ? principal : ownerPrincipal;
}
