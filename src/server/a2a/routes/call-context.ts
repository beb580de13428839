import { Extensions } from '@a2a-js/sdk';
import {
  defaultServerCallContextBuilder,
  type ServerCallContext,
  UnauthenticatedUser,
} from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import { ownerPrincipal } from '../../../runtime/runtime-context.js';
import { principalOf } from '../../http/auth.js';

export const versionHeader = 'A2A-Version';

/** Where a call context keeps the principal the request acts as (the runtime's actor). */
const principalStateKey = 'agentd.principal';

/** v0.x is the legacy range; a request without `A2A-Version` is v0.3 in the A2A spec. */
export function isLegacyVersion(version: string): boolean {
  return /^0\./.test(version.trim());
}

/**
 * The SDK's call context for a request. The principal the HTTP auth middleware found is kept in the
 * context's state, for the runtime's permission checks; the SDK's user stays unauthenticated, so
 * the SDK's own task locks (keyed by user name) are the same for the engine's writes and the
 * requests'.
 */
export function callContext(
  c: Context,
  options: { requestedVersion: string; legacy: boolean },
): ServerCallContext {
  const extensions = options.legacy
    ? (c.req.header('X-A2A-Extensions') ?? c.req.header('A2A-Extensions'))
    : c.req.header('A2A-Extensions');
  const context = defaultServerCallContextBuilder({
    extensions: Extensions.parseServiceParameter(extensions),
    user: new UnauthenticatedUser(),
    headers: c.req.header(),
    requestedVersion: options.requestedVersion,
  });
  context.state.set(principalStateKey, principalOf(c));
  return context;
}

/** The principal a call acts as: the owner unless the request's authentication said otherwise. */
export function principalOfCall(context: ServerCallContext | undefined): string {
  const principal: unknown = context?.state.get(principalStateKey);
  return typeof principal === 'string' ? principal : ownerPrincipal;
}
