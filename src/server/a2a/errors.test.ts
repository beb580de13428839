import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  A2A_ERROR_CODE,
  A2AError,
  RequestMalformedError,
  restStatusFor,
  TaskNotCancelableError,
  TaskNotFoundError,
  toRestErrorBody,
} from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import {
  AgentdError,
  BudgetExceededError,
  ConflictError,
  CredentialsMissingError,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  StateError,
  StoreError,
  UnknownCommandError,
} from '../../errors/index.js';
import { a2aErrors, toA2aError } from './errors.js';

/** The failure as each transport sends it. */
function onTheWire(error: unknown) {
  const a2a = toA2aError(error);
  const status = restStatusFor(a2a);
  return {
    jsonRpc: JsonRpcTransportHandler.mapToJSONRPCError(a2a),
    legacyJsonRpc: LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(a2a),
    http: status,
    rest: toRestErrorBody(a2a, status).error,
  };
}

describe('A2A errors', () => {
  it('each entry of the table is what both transports send: its JSON-RPC code (v1.0 and v0.3) and its HTTP status', () => {
    for (const [code, wire] of Object.entries(a2aErrors)) {
      const sample = code.endsWith('Error')
        ? new wire.kind({ message: 'sample', statusCode: 400 })
        : new AgentdError({ code, message: 'sample' });
      const sent = onTheWire(sample);
      expect({ code, jsonRpc: sent.jsonRpc.code, legacy: sent.legacyJsonRpc.code, http: sent.http }).toEqual({
        code,
        jsonRpc: wire.jsonRpc,
        legacy: wire.jsonRpc,
        http: wire.http,
      });
    }
  });

  it("agentd's errors keep their message and code, and are never an internal error", () => {
    const cases: Array<[AgentdError, number, number]> = [
      [new InvalidInputError('text must not be empty'), A2A_ERROR_CODE.INVALID_PARAMS, 400],
      [new NotFoundError('session s not found'), A2A_ERROR_CODE.INVALID_PARAMS, 404],
      [new ConflictError('messageId m was already used'), A2A_ERROR_CODE.INVALID_PARAMS, 409],
      [new StateError('session s is archived'), A2A_ERROR_CODE.UNSUPPORTED_OPERATION, 409],
      [new CredentialsMissingError('no credentials'), A2A_ERROR_CODE.UNSUPPORTED_OPERATION, 503],
      [new ForbiddenError('bob may not role.trigger on role:default/reviewer'), -32602, 403],
      [new UnknownCommandError('unknown command /foo'), -32602, 400],
      [new BudgetExceededError('the session s has spent $1 of its $1 limit'), -32004, 402],
      // A user error the table does not name is still the user's: an invalid request.
      [new AgentdError({ code: 'skill_invalid', message: 'no SKILL.md', userError: true }), -32602, 400],
    ];
    for (const [error, jsonRpc, http] of cases) {
      const sent = onTheWire(error);
      expect(sent.jsonRpc).toMatchObject({ code: jsonRpc, message: error.message });
      expect(sent.http).toBe(http);
      expect(sent.rest.message).toBe(error.message);
      expect(sent.rest.details).toContainEqual(expect.objectContaining({ metadata: { code: error.code } }));
    }
  });

  it('a fault of the server is an internal error whose message (which may name files) stays in the log', () => {
    const logged: string[] = [];
    const fault = new StoreError({ code: 'store_busy', message: 'database /srv/agentd/agentd.db is locked' });
    const a2a = toA2aError(fault, (line) => logged.push(line));
    expect(JsonRpcTransportHandler.mapToJSONRPCError(a2a)).toMatchObject({
      code: A2A_ERROR_CODE.INTERNAL_ERROR,
      message: 'internal server error',
    });
    expect(restStatusFor(a2a)).toBe(500);
    expect(logged.join('\n')).toContain('/srv/agentd/agentd.db is locked');
    expect(toA2aError(new TypeError('x is undefined')).message).toBe('internal server error');
  });

  it("the SDK's own errors pass unchanged, but a finished task's cancel is 409 over HTTP+JSON, as the spec says", () => {
    const notFound = new TaskNotFoundError('Task not found: t');
    expect(toA2aError(notFound)).toBe(notFound);
    expect(onTheWire(new RequestMalformedError('bad')).http).toBe(400);
    const notCancelable = onTheWire(new TaskNotCancelableError('Task not cancelable: t'));
    expect(notCancelable.http).toBe(409);
    expect(notCancelable.jsonRpc.code).toBe(A2A_ERROR_CODE.TASK_NOT_CANCELABLE);
    expect(notCancelable.rest).toMatchObject({
      status: 'FAILED_PRECONDITION',
      message: 'Task not cancelable: t',
    });
    expect(toA2aError(new TaskNotCancelableError('t'))).toBeInstanceOf(A2AError);
  });
});
