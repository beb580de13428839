import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import {
  AgentdError,
  ConflictError,
  InvalidInputError,
  StateError,
  StoreError,
  UnknownCommandError,
} from '../../errors/index.js';
import { toErrorResponse } from './errors.js';

describe('toErrorResponse', () => {
  it('maps agentd error codes to their statuses with the code and message', () => {
    expect(toErrorResponse(new InvalidInputError('bad'))).toEqual({
      status: 400,
      body: { error: { code: 'invalid_input', message: 'bad' } },
    });
    expect(toErrorResponse(new ConflictError('again')).status).toBe(409);
    expect(toErrorResponse(new StateError('archived')).status).toBe(409);
  });

  it("a user's mistake is a 400 with its own code, listed or not", () => {
    expect(toErrorResponse(new UnknownCommandError('unknown command /x')).body.error.code).toBe(
      'unknown_command',
    );
    const unlisted = toErrorResponse(new AgentdError({ code: 'skill_link', message: 'no', userError: true }));
    expect(unlisted).toEqual({ status: 400, body: { error: { code: 'skill_link', message: 'no' } } });
  });

  it('hides server faults behind a 500 `internal` with no message or stack of its own', () => {
    const fault = toErrorResponse(new StoreError({ message: 'disk on fire at /var/lib/secret' }));
    expect(fault).toEqual({
      status: 500,
      body: { error: { code: 'internal', message: 'internal server error' } },
    });
    expect(toErrorResponse(new TypeError('x is undefined')).body.error.code).toBe('internal');
  });

  it("keeps a framework exception's client status", () => {
    expect(toErrorResponse(new HTTPException(404, { message: 'nope' }))).toEqual({
      status: 404,
      body: { error: { code: 'not_found', message: 'nope' } },
    });
  });
});
