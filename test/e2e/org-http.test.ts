/**
 * Providers, roles, skills, channels, grants and budgets through the HTTP API with a real client
 * (fetch against a started server), bearer tokens mapped to principals. Turns are answered by the
 * scripted model through the environment's (`env`) provider.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  budgetListSchema,
  budgetResponseSchema,
  channelBindingSchema,
  channelDetailsSchema,
  grantResponseSchema,
  messageResultSchema,
  providerListSchema,
  providerResponseSchema,
  roleChangeSchema,
  roleListSchema,
  roleResponseSchema,
  roleVersionsSchema,
  skillListSchema,
  skillResponseSchema,
  spendReportSchema,
} from '../../src/server/http/org-schemas.js';
import {
  createSessionResponseSchema,
  errorBodySchema,
  eventPageSchema,
} from '../../src/server/http/schemas.js';
import { type RunningServer, startServer } from '../../src/server/serve.js';
import { skillMarkdown, tarGz, zipArchive } from '../../src/skills/test-fixtures/archives.js';
import { lastUserText } from '../../src/testing/demo-model.js';
import { type ScriptedModel, startScriptedModel } from '../../src/testing/index.js';
import { isolatedEnv } from './isolated-env.js';

const ownerToken = 'owner-token-5c2e91d7a4';

let model: ScriptedModel;
let server: RunningServer;
let root: string;
let workDir: string;

interface Call {
  status: number;
  json: unknown;
}

async function api(
  path: string,
  init: { method?: string; json?: unknown; body?: Uint8Array; type?: string; token?: string | null } = {},
): Promise<Call> {
  const headers = new Headers();
  const token = init.token === undefined ? ownerToken : init.token;
  if (token !== null) headers.set('authorization', `Bearer ${token}`);
  let body: string | Uint8Array | null = null;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  } else if (init.body) {
    headers.set('content-type', init.type ?? 'application/zip');
    body = init.body;
  }
  const response = await fetch(`${server.url}${path}`, {
    method: init.method ?? (body === null ? 'GET' : 'POST'),
    headers,
    body,
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

function ok<T extends z.ZodType>(call: Call, status: number, schema: T): z.output<T> {
  expect(call.status, JSON.stringify(call.json)).toBe(status);
  return schema.parse(call.json);
}

function expectError(call: Call, status: number, code: string, ...parts: string[]) {
  expect(call.status, JSON.stringify(call.json)).toBe(status);
  const { error } = errorBodySchema.parse(call.json);
  expect(error.code).toBe(code);
  for (const part of parts) expect(error.message).toContain(part);
}

/** Polls the session's events until a `work.settled`; the test's own timeout bounds the wait. */
async function waitForSettled(sessionId: string): Promise<void> {
  for (;;) {
    const page = eventPageSchema.parse(
      (await api(`/v1/sessions/${sessionId}/events?after=0&limit=1000`)).json,
    );
    if (page.events.some((event) => event.type === 'work.settled')) return;
    const failed = page.events.find((event) => event.type === 'execution.failed');
    if (failed) throw new Error(`worker failed: ${JSON.stringify(failed.data)}`);
    await sleep(100);
  }
}

const inputCount = async (sessionId: string) =>
  ((await api(`/v1/sessions/${sessionId}/inputs`)).json as { inputs: unknown[] }).inputs.length;

beforeAll(async () => {
  model = await startScriptedModel({ script: (request) => ({ text: `echo: ${lastUserText(request)}` }) });
  root = mkdtempSync(join(tmpdir(), 'agentd-org-http-'));
  workDir = join(root, 'work');
  mkdirSync(workDir);
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: join(root, 'data'),
    env: { ...isolatedEnv(root), ...model.env(), AGENTD_TOKENS: ownerToken },
    reconcileMs: 500,
  });
});

afterAll(async () => {
  if (server) {
    const { runtime } = server;
    for (const session of await runtime.listSessions()) await runtime.stop(session.id);
    for (let tries = 0; tries < 300; tries += 1) {
      await runtime.reconcile();
      const live = await runtime.executionsInState(['starting', 'running', 'idle', 'stopping']);
      if (live.length === 0) break;
      await sleep(100);
    }
    await server.close();
  }
  await model?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('HTTP API: providers and roles', () => {
  it('providers: add, replace, list, show, remove; a role on a profile without its secret answers 503 credentials_missing naming it', async () => {
    const profile = {
      name: 'router',
      kind: 'openrouter',
      secret: { env: 'ROUTER_KEY_MISSING' },
      models: { sonnet: 'z-ai/glm-4.7' },
    };
    const added = ok(await api('/v1/providers', { json: profile }), 201, providerResponseSchema);
    expect(added).toMatchObject({ created: true, provider: { baseUrl: 'https://openrouter.ai/api' } });
    expect(ok(await api('/v1/providers', { json: profile }), 200, providerResponseSchema).created).toBe(
      false,
    );
    expect(
      ok(await api('/v1/providers'), 200, providerListSchema).providers.map((each) => each.name),
    ).toEqual(['router']);
    expect(ok(await api('/v1/providers/router'), 200, providerResponseSchema).provider.secret).toEqual({
      env: 'ROUTER_KEY_MISSING',
    });
    expectError(
      await api('/v1/providers', { json: { ...profile, secret: 'sk-or-secret' } }),
      400,
      'invalid_input',
    );
    expectError(await api('/v1/providers', { json: { ...profile, name: 'env' } }), 400, 'invalid_input');

    ok(await api('/v1/roles', { json: { name: 'routed', provider: 'router' } }), 201, roleResponseSchema);
    expectError(
      await api('/v1/sessions', { json: { role: 'routed', prompt: 'hi', cwd: workDir } }),
      503,
      'credentials_missing',
      'router',
    );
    expectError(
      await api('/v1/channels/team/messages', { json: { text: 'hi', role: 'routed' } }),
      503,
      'credentials_missing',
      'router',
    );

    expectError(await api('/v1/providers/router', { method: 'DELETE' }), 409, 'invalid_state', 'routed');
    ok(await api('/v1/roles/routed', { method: 'DELETE' }), 200, roleChangeSchema);
    expect((await api('/v1/providers/router', { method: 'DELETE' })).status).toBe(204);
    expectError(await api('/v1/providers/router'), 404, 'not_found');
  });

  it('roles: create, change (a surface change archives the sessions, a label change keeps them), versions, default', async () => {
    const created = ok(
      await api('/v1/roles', { json: { name: 'reviewer', label: 'Reviewer', systemPrompt: 'You review.' } }),
      201,
      roleResponseSchema,
    );
    expect(created.role).toMatchObject({ version: 1, label: 'Reviewer', provider: 'env' });
    expectError(await api('/v1/roles', { json: { name: 'reviewer' } }), 409, 'conflict');
    expectError(await api('/v1/roles', { json: { name: 'x', tools: 'Read' } }), 400, 'invalid_input');

    const { session } = ok(
      await api('/v1/sessions', { json: { role: 'reviewer', cwd: workDir } }),
      201,
      createSessionResponseSchema,
    );
    expect(session).toMatchObject({
      role: 'reviewer',
      roleVersion: 1,
      organization: 'default',
      state: 'active',
    });

    const relabelled = ok(
      await api('/v1/roles/reviewer', { method: 'PATCH', json: { label: 'Code reviewer' } }),
      200,
      roleChangeSchema,
    );
    expect(relabelled).toMatchObject({ role: { version: 2 }, archived: [] });
    expectError(
      await api('/v1/roles/reviewer', { method: 'PATCH', json: { model: 'claude-x', expectVersion: 1 } }),
      409,
      'conflict',
    );
    const changed = ok(
      await api('/v1/roles/reviewer', { method: 'PATCH', json: { model: 'claude-x', expectVersion: 2 } }),
      200,
      roleChangeSchema,
    );
    expect(changed).toMatchObject({ role: { version: 3, model: 'claude-x' }, archived: [session.id] });
    expect(
      ((await api(`/v1/sessions/${session.id}`)).json as { session: { state: string } }).session.state,
    ).toBe('archived');

    const versions = ok(await api('/v1/roles/reviewer/versions'), 200, roleVersionsSchema).versions;
    expect(versions.map((version) => [version.version, version.label, version.model])).toEqual([
      [1, 'Reviewer', null],
      [2, 'Code reviewer', null],
      [3, 'Code reviewer', 'claude-x'],
    ]);
    expect(ok(await api('/v1/roles/reviewer?version=1'), 200, roleResponseSchema).role.label).toBe(
      'Reviewer',
    );
    expectError(await api('/v1/roles/nobody'), 404, 'not_found');

    expect((await api('/v1/roles/reviewer/default', { method: 'POST' })).json).toMatchObject({
      organization: { defaultRole: 'reviewer' },
    });
    const list = ok(await api('/v1/roles'), 200, roleListSchema);
    expect(list.defaultRole).toBe('reviewer');
    expect(list.roles.map((role) => role.name)).toEqual(expect.arrayContaining(['default', 'reviewer']));
    expectError(await api('/v1/roles/reviewer', { method: 'DELETE' }), 409, 'invalid_state');
    await api('/v1/roles/default/default', { method: 'POST' });
    expect(ok(await api('/v1/roles'), 200, roleListSchema).defaultRole).toBe('default');
  });
});

describe('HTTP API: skills', () => {
  it('upload: stored by digest, the same content twice is stored once, a malicious archive is refused and stores nothing', async () => {
    const zip = zipArchive([{ path: 'SKILL.md', content: skillMarkdown }]);
    const first = ok(await api('/v1/skills', { body: zip }), 201, skillResponseSchema).skill;
    expect(first).toMatchObject({ name: 'pdf-tools', created: true });
    expect(first.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const again = ok(await api('/v1/skills', { body: zip }), 200, skillResponseSchema).skill;
    expect(again).toMatchObject({ digest: first.digest, created: false });
    const tarred = tarGz([{ path: 'pdf-tools/SKILL.md', content: skillMarkdown }]);
    expect(
      ok(await api('/v1/skills', { body: tarred, type: 'application/gzip' }), 200, skillResponseSchema).skill
        .digest,
    ).toBe(first.digest);

    const evil = zipArchive([
      { path: 'SKILL.md', content: skillMarkdown },
      { path: '../../evil.sh', content: 'rm -rf ~' },
    ]);
    expectError(await api('/v1/skills', { body: evil }), 400, 'skill_unsafe_path');
    expectError(
      await api('/v1/skills', { body: zip, type: 'application/json' }),
      415,
      'unsupported_media_type',
    );
    expectError(
      await api('/v1/skills', { body: new TextEncoder().encode('not an archive') }),
      400,
      'skill_archive_invalid',
    );
    expect(ok(await api('/v1/skills'), 200, skillListSchema).skills.map((skill) => skill.digest)).toEqual([
      first.digest,
    ]);

    const encoded = encodeURIComponent(first.digest);
    expect(ok(await api(`/v1/skills/${encoded}`), 200, skillResponseSchema).skill.files).toEqual([
      { path: 'SKILL.md', bytes: skillMarkdown.length, executable: false },
    ]);
    expect((await api(`/v1/skills/${encoded}`, { method: 'DELETE' })).status).toBe(204);
    expectError(await api(`/v1/skills/${encoded}`), 404, 'not_found');
  });
});

describe('HTTP API: channels, commands, principals and budgets', () => {
  const key = 'a2a:ctx-1';
  const path = `/v1/channels/${encodeURIComponent(key)}`;
  let sessionId = '';

  it('channels: bind, messages (text, /help, /status; an unknown command changes nothing), session messages under the protocol', async () => {
    expect(
      ok(await api('/v1/channels', { json: { key, project: 'blog' } }), 201, channelBindingSchema).created,
    ).toBe(true);
    expect(
      ok(await api('/v1/channels', { json: { key, project: 'blog' } }), 200, channelBindingSchema).created,
    ).toBe(false);
    expect(ok(await api(path), 200, channelDetailsSchema)).toMatchObject({
      channel: { key, project: 'blog', role: 'default' },
      session: null,
    });
    expect(
      ok(await api(`${path}/messages`, { json: { text: '/status' } }), 200, messageResultSchema),
    ).toMatchObject({
      kind: 'command',
      command: 'status',
      status: null,
    });

    const sent = ok(
      await api(`${path}/messages`, { json: { text: 'hello channel', messageId: 'c-1' } }),
      202,
      messageResultSchema,
    );
    expect(sent).toMatchObject({ kind: 'input', input: { messageId: 'c-1', text: 'hello channel' } });
    sessionId = sent.session?.id ?? '';
    await waitForSettled(sessionId);
    expect(ok(await api(path), 200, channelDetailsSchema).session?.id).toBe(sessionId);

    const help = ok(await api(`${path}/messages`, { json: { text: '/help' } }), 200, messageResultSchema);
    expect(help).toMatchObject({ command: 'help' });
    expect('commands' in help && help.commands.map((command) => command.name)).toEqual([
      '/compact',
      '/goal',
      '/stop',
      '/status',
      '/new',
      '/pending',
      '/help',
    ]);
    const status = ok(await api(`${path}/messages`, { json: { text: '/status' } }), 200, messageResultSchema);
    expect(status).toMatchObject({
      command: 'status',
      status: { session: { id: sessionId }, waitingInputs: 0 },
    });

    const inputs = await inputCount(sessionId);
    expectError(
      await api(`${path}/messages`, { json: { text: '/model opus' } }),
      400,
      'unknown_command',
      '/model',
    );
    expectError(
      await api(`/v1/sessions/${sessionId}/messages`, { json: { text: '/clear' } }),
      400,
      'unknown_command',
    );
    expect(await inputCount(sessionId)).toBe(inputs);
    expect(
      ok(
        await api(`/v1/sessions/${sessionId}/messages`, { json: { text: '/help' } }),
        200,
        messageResultSchema,
      ),
    ).toMatchObject({ kind: 'command', command: 'help' });
    expectError(await api('/v1/channels/nothing-here'), 404, 'not_found');
    expect((await api('/v1/channels')).json).toMatchObject({
      channels: expect.arrayContaining([expect.objectContaining({ key })]),
    });
  });

  it('principals: a token with agent.trigger but not role.trigger may not switch roles (403, unchanged), may after the grant', async () => {
    ok(await api('/v1/roles', { json: { name: 'writer' } }), 201, roleResponseSchema);
    const { token } = await server.runtime.grants.issueToken('bob');
    const agentGrant = ok(
      await api('/v1/grants', {
        json: { principal: 'bob', action: 'agent.trigger', resource: 'project:default/blog' },
      }),
      201,
      grantResponseSchema,
    ).grant;

    expectError(
      await api(`${path}/role`, { method: 'PUT', json: { role: 'writer' }, token }),
      403,
      'forbidden',
      'role.trigger',
    );
    expect(ok(await api(path), 200, channelDetailsSchema).channel.role).toBe('default');
    expectError(await api('/v1/roles', { json: { name: 'bobs' }, token }), 403, 'forbidden');
    expectError(
      await api('/v1/grants', { json: { principal: 'bob', action: 'admin', resource: '*' }, token }),
      403,
      'forbidden',
    );
    // What bob may do, he does as himself.
    expect(
      ok(await api(`${path}/messages`, { json: { text: '/help' }, token }), 200, messageResultSchema),
    ).toMatchObject({
      command: 'help',
    });
    expectError(await api('/v1/roles', { token: 'agentd_not-issued' }), 401, 'unauthorized');
    expectError(await api('/v1/roles', { token: null }), 401, 'unauthorized');

    const roleGrant = ok(
      await api('/v1/grants', {
        json: { principal: 'bob', action: 'role.trigger', resource: 'role:default/writer' },
      }),
      201,
      grantResponseSchema,
    ).grant;
    const switched = ok(
      await api(`${path}/role`, { method: 'PUT', json: { role: 'writer' }, token }),
      200,
      channelDetailsSchema,
    );
    expect(switched).toMatchObject({ channel: { role: 'writer' }, role: { name: 'writer' }, session: null });
    expect((await api('/v1/grants?principal=bob')).json).toMatchObject({
      grants: [{ id: agentGrant.id }, { id: roleGrant.id }],
    });
    expect((await api(`/v1/grants/${roleGrant.id}`, { method: 'DELETE' })).status).toBe(204);
    expectError(
      await api(`${path}/role`, { method: 'PUT', json: { role: 'default' }, token }),
      403,
      'forbidden',
    );
    ok(await api(`${path}/role`, { method: 'PUT', json: { role: 'default' } }), 200, channelDetailsSchema);
  });

  it('budgets: a session over its limit answers 402 until the limit is raised; limits list with spend', async () => {
    const set = ok(
      await api('/v1/budgets', { method: 'PUT', json: { scope: 'session', target: sessionId, limitUsd: 0 } }),
      200,
      budgetResponseSchema,
    );
    expect(set.budget).toMatchObject({ scope: 'session', target: sessionId, limitUsd: 0, exceeded: true });
    const inputs = await inputCount(sessionId);
    expectError(await api(`${path}/messages`, { json: { text: 'more please' } }), 402, 'budget_exceeded');
    expectError(
      await api(`/v1/sessions/${sessionId}/messages`, { json: { text: 'more' } }),
      402,
      'budget_exceeded',
    );
    expect(await inputCount(sessionId)).toBe(inputs);
    expect(ok(await api('/v1/budgets'), 200, budgetListSchema).budgets).toMatchObject([
      { scope: 'session', target: sessionId, exceeded: true },
    ]);
    const removed = ok(
      await api('/v1/budgets', {
        method: 'PUT',
        json: { scope: 'session', target: sessionId, limitUsd: null },
      }),
      200,
      budgetResponseSchema,
    );
    expect(removed.budget).toBeNull();
    expect(ok(await api('/v1/budgets'), 200, budgetListSchema).budgets).toEqual([]);
    // Spend per organization and role, limit or not.
    const spend = ok(await api('/v1/spend'), 200, spendReportSchema);
    expect(spend.organizations).toContainEqual(
      expect.objectContaining({ organization: 'default', limitUsd: null }),
    );
    expect(spend.roles.map((each) => each.role)).toContain('default');
    expectError(
      await api('/v1/budgets', { method: 'PUT', json: { scope: 'galaxy', target: 'x', limitUsd: 1 } }),
      400,
      'invalid_input',
    );
  });

  it('openapi: documents the new routes with their schemas', async () => {
    const document = (await api('/openapi.json')).json as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string }> }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/v1/providers',
        '/v1/providers/{name}',
        '/v1/roles',
        '/v1/roles/{name}',
        '/v1/roles/{name}/versions',
        '/v1/roles/{name}/default',
        '/v1/skills',
        '/v1/skills/{digest}',
        '/v1/channels',
        '/v1/channels/{key}',
        '/v1/channels/{key}/role',
        '/v1/channels/{key}/messages',
        '/v1/grants',
        '/v1/grants/{id}',
        '/v1/budgets',
        '/v1/spend',
      ]),
    );
    expect(Object.keys(document.paths['/v1/roles/{name}'] ?? {})).toEqual(['get', 'patch', 'delete']);
    expect(document.paths['/v1/channels/{key}/messages']?.post?.parameters?.map((p) => p.name)).toEqual([
      'key',
    ]);
    for (const schema of [
      'Provider',
      'Role',
      'RoleChange',
      'Skill',
      'ChannelDetails',
      'MessageResult',
      'Grant',
      'Budget',
      'SpendReport',
    ])
      expect(document.components.schemas).toHaveProperty(schema);
  });
});
