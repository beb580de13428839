import { Extensions } from '@a2a-js/sdk';
import {
  defaultServerCallContextBuilder,
  type ServerCallContext,
  UnauthenticatedUser,
} from '@a2a-js/sdk/server';
import type { Context } from 'hono';

export const versionHeader = 'A2A-Version';

/** v0.x is the legacy range; a request without `A2A-Version` is v0.3 in the A2A spec. */
export function isLegacyVersion(version: string): boolean {
  return /^0\./.test(version.trim());
}

/**
 * The SDK's call context for a request. Callers are not told apart: agentd's bearer tokens (checked
 * before any A2A route) all stand for the same operator.
 */
export function callContext(
  c: Context,
  options: { requestedVersion: string; legacy: boolean },
): ServerCallContext {
  const extensions = options.legacy
    ? (c.req.header('X-A2A-Extensions') ?? c.req.header('A2A-Extensions'))
    : c.req.header('A2A-Extensions');
  return defaultServerCallContextBuilder({
    extensions: Extensions.parseServiceParameter(extensions),
    user: new UnauthenticatedUser(),
    headers: c.req.header(),
    requestedVersion: options.requestedVersion,
  });
}
