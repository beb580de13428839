import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { bearerAuth, type PrincipalTokens, principalOf } from './auth.js';

/** Tokens issued to principals, as the runtime's grants would answer. */
function issued(tokens: Record<string, string>): PrincipalTokens {
  return {
    principalOfToken: async (token) => tokens[token] ?? null,
    tokensIssued: async () => Object.keys(tokens).length > 0,
  };
}

function appWith(options: Parameters<typeof bearerAuth>[0]) {
  const app = new Hono();
  app.use('*', bearerAuth(options));
  app.get('/v1/whoami', (c) => c.json({ principal: principalOf(c) }));
  app.get('/health/live', (c) => c.text('ok'));
  return async (token?: string, path = '/v1/whoami') => {
    const response = await app.request(path, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    return {
      status: response.status,
      body: response.headers.get('content-type')?.includes('json') ? await response.json() : null,
    };
  };
}

describe('bearerAuth', () => {
  it('with configured tokens: each is the owner, an issued token is its principal, anything else is 401', async () => {
    const request = appWith({ tokens: ['owner-1', 'owner-2'], principals: issued({ agentd_bob: 'bob' }) });
    expect(await request('owner-2')).toEqual({ status: 200, body: { principal: 'owner' } });
    expect(await request('agentd_bob')).toEqual({ status: 200, body: { principal: 'bob' } });
    expect((await request('agentd_eve')).status).toBe(401);
    expect((await request()).status).toBe(401);
    expect((await request(undefined, '/health/live')).status).toBe(200);
  });

  it('with no tokens configured: no token is the owner; an issued token is its principal; an unknown one is refused once any is issued', async () => {
    const open = appWith({ principals: issued({}) });
    expect(await open()).toEqual({ status: 200, body: { principal: 'owner' } });
    // As before principals existed: an open server ignores tokens.
    expect(await open('whatever')).toEqual({ status: 200, body: { principal: 'owner' } });

    const withPrincipals = appWith({ principals: issued({ agentd_bob: 'bob' }) });
    expect(await withPrincipals()).toEqual({ status: 200, body: { principal: 'owner' } });
    expect(await withPrincipals('agentd_bob')).toEqual({ status: 200, body: { principal: 'bob' } });
    const unknown = await withPrincipals('agentd_revoked');
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ error: { code: 'unauthorized' } });
  });
});
