import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { ownerPrincipal } from '../../runtime/runtime-context.js';
import { errorJson, unauthorized } from './errors.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The principal the request acts as: `owner` for a configured token (or an open server), else a token's principal. */
    principal: string;
  }
}

/** Probes and the agent card must work without a token: orchestrators and A2A clients fetch them first. */
export const publicPaths = new Set([
  '/health/live',
  '/health/ready',
  '/.well-known/agent-card.json',
  '/.well-known/agent.json',
]);

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Where issued tokens are looked up (the runtime's grants). */
export interface PrincipalTokens {
  /** The principal an issued token belongs to, or null. */
  principalOfToken(token: string): Promise<string | null>;
  /** Whether any principal holds a token. */
  tokensIssued(): Promise<boolean>;
}

export interface BearerAuthOptions {
  /** Configured tokens (server config, AGENTD_TOKENS): each one is the `owner`. @default [] */
  tokens?: readonly string[];
  /** Tokens issued to principals (`agentd principals token NAME`). @default none */
  principals?: PrincipalTokens;
}

/** The principal a request acts as, for routes to pass to the runtime as `actor`. */
export function principalOf(context: Context): string {
  return context.get('principal') ?? ownerPrincipal;
}

/**
 * Bearer-token authentication: maps a token to the principal the request acts as. A configured
 * token is the `owner`; a token issued to a principal is that principal, with only its grants. With
 * no tokens configured a request without one is the `owner` (serve refuses to listen beyond
 * loopback like that unless told `--insecure`), and so is every request while no principal holds a
 * token either, as before principals existed. Tokens are compared as digests in constant time, and
 * a refused request never reaches a route, so it changes nothing.
 */
export function bearerAuth(options: BearerAuthOptions = {}): MiddlewareHandler {
  const digests = (options.tokens ?? []).map(digest);
  const open = digests.length === 0;
  return async (context, next) => {
    if (publicPaths.has(context.req.path)) return next();
    const header = context.req.header('authorization');
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) {
      if (open) {
        context.set('principal', ownerPrincipal);
        return next();
      }
      context.header('WWW-Authenticate', 'Bearer realm="agentd"');
      return errorJson(context, unauthorized('missing bearer token: send "Authorization: Bearer <token>"'));
    }
    const token = match[1]!;
    const presented = digest(token);
    if (digests.some((candidate) => timingSafeEqual(candidate, presented))) {
      context.set('principal', ownerPrincipal);
      return next();
    }
    const principal = (await options.principals?.principalOfToken(token)) ?? null;
    if (principal !== null) {
      context.set('principal', principal);
      return next();
    }
    // An open server ignores tokens as long as none means anything.
    if (open && !(await options.principals?.tokensIssued())) {
      context.set('principal', ownerPrincipal);
      return next();
    }
    context.header('WWW-Authenticate', 'Bearer realm="agentd", error="invalid_token"');
    return errorJson(context, unauthorized('invalid bearer token'));
  };
}
