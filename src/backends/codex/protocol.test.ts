import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCodexExecutable } from './codex-path.js';
import { approvalMethods, clientMethods, notificationMethods, otherServerMethods } from './protocol.js';

// Every method and field agentd uses, checked against the protocol of the installed `codex`
// (`codex app-server generate-json-schema`, stable methods only): an upgrade that renames one
// fails here before it fails a session.

interface Schema {
  oneOf?: Array<{ properties?: { method?: { enum?: string[] } } }>;
  definitions?: Record<string, { properties?: Record<string, unknown>; enum?: string[]; oneOf?: unknown[] }>;
}

let dir: string;
const schemas: Record<string, Schema> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentd-codex-schema-'));
  execFileSync(findCodexExecutable().path, ['app-server', 'generate-json-schema', '--out', dir], {
    env: { ...process.env, CODEX_HOME: dir, HOME: dir },
    stdio: 'ignore',
  });
  for (const name of [
    'ClientRequest',
    'ServerRequest',
    'ServerNotification',
    'CommandExecutionRequestApprovalResponse',
    'FileChangeRequestApprovalResponse',
  ])
    schemas[name] = JSON.parse(await readFile(join(dir, `${name}.json`), 'utf8')) as Schema;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const methodsOf = (schema: Schema) =>
  (schema.oneOf ?? []).flatMap((variant) => variant.properties?.method?.enum ?? []);

/** The fields of a definition of the schema: a params or response type. */
function fieldsOf(schema: Schema, name: string): string[] {
  const definition = schema.definitions?.[name];
  expect(definition, `${name} in the generated schema`).toBeDefined();
  return Object.keys(definition?.properties ?? {});
}

describe('the codex app-server protocol agentd speaks', () => {
  it('has every method agentd sends, answers and reads', () => {
    expect(methodsOf(schemas.ClientRequest!)).toEqual(expect.arrayContaining(Object.values(clientMethods)));
    expect(methodsOf(schemas.ServerRequest!)).toEqual(
      expect.arrayContaining([...Object.values(approvalMethods), ...Object.values(otherServerMethods)]),
    );
    expect(methodsOf(schemas.ServerNotification!)).toEqual(
      expect.arrayContaining(Object.values(notificationMethods)),
    );
  });

  it('has every field agentd sends and reads', () => {
    const client = schemas.ClientRequest!;
    const server = schemas.ServerRequest!;
    const notes = schemas.ServerNotification!;
    const settings = ['model', 'cwd', 'approvalPolicy', 'sandbox', 'developerInstructions'];
    expect(fieldsOf(client, 'ThreadStartParams')).toEqual(expect.arrayContaining(settings));
    expect(fieldsOf(client, 'ThreadResumeParams')).toEqual(
      expect.arrayContaining([...settings, 'threadId', 'excludeTurns']),
    );
    expect(fieldsOf(client, 'TurnStartParams')).toEqual(expect.arrayContaining(['threadId', 'input']));
    expect(fieldsOf(client, 'TurnSteerParams')).toEqual(
      expect.arrayContaining(['threadId', 'input', 'expectedTurnId']),
    );
    expect(fieldsOf(client, 'TurnInterruptParams')).toEqual(expect.arrayContaining(['threadId', 'turnId']));
    expect(fieldsOf(client, 'ThreadInjectItemsParams')).toEqual(
      expect.arrayContaining(['threadId', 'items']),
    );
    expect(fieldsOf(client, 'ThreadItemsListParams')).toEqual(
      expect.arrayContaining(['threadId', 'cursor', 'limit']),
    );
    expect(fieldsOf(client, 'CommandExecParams')).toEqual(
      expect.arrayContaining(['command', 'cwd', 'sandboxPolicy', 'timeoutMs', 'disableTimeout']),
    );
    expect(fieldsOf(server, 'CommandExecutionRequestApprovalParams')).toEqual(
      expect.arrayContaining(['threadId', 'turnId', 'itemId', 'approvalId', 'command', 'cwd', 'reason']),
    );
    expect(fieldsOf(server, 'FileChangeRequestApprovalParams')).toEqual(
      expect.arrayContaining(['threadId', 'turnId', 'itemId', 'reason', 'grantRoot']),
    );
    expect(fieldsOf(notes, 'ErrorNotification')).toEqual(
      expect.arrayContaining(['error', 'willRetry', 'threadId', 'turnId']),
    );
    expect(fieldsOf(notes, 'TurnError')).toEqual(
      expect.arrayContaining(['message', 'codexErrorInfo', 'additionalDetails']),
    );
    expect(fieldsOf(notes, 'ThreadTokenUsageUpdatedNotification')).toEqual(
      expect.arrayContaining(['threadId', 'turnId', 'tokenUsage']),
    );
    expect(fieldsOf(notes, 'TokenUsageBreakdown')).toEqual(
      expect.arrayContaining(['inputTokens', 'outputTokens', 'cachedInputTokens', 'cacheWriteInputTokens']),
    );
    expect(fieldsOf(notes, 'ServerRequestResolvedNotification')).toEqual(
      expect.arrayContaining(['threadId', 'requestId']),
    );
  });

  it('has the decisions agentd answers with', () => {
    const decisions = JSON.stringify(
      schemas.CommandExecutionRequestApprovalResponse!.definitions?.CommandExecutionApprovalDecision,
    );
    const fileDecisions = JSON.stringify(
      schemas.FileChangeRequestApprovalResponse!.definitions?.FileChangeApprovalDecision,
    );
    for (const decision of ['accept', 'decline', 'cancel']) {
      expect(decisions).toContain(`"${decision}"`);
      expect(fileDecisions).toContain(`"${decision}"`);
    }
  });
});
