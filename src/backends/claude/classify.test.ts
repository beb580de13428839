import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../agent-event.js';
import {
  classifyAssistantError,
  classifyError,
  classifyResult,
  classifyStatus,
  errorInfo,
  isTransient,
} from './classify.js';

describe('classifyStatus', () => {
  it.each([
    [401, 'authentication'],
    [403, 'permission'],
    [429, 'rate_limit'],
    [529, 'overloaded'],
    [408, 'timeout'],
    [504, 'timeout'],
    [413, 'context_overflow'],
    [500, 'server_error'],
    [502, 'server_error'],
    [503, 'server_error'],
    [400, 'invalid_request'],
    [404, 'invalid_request'],
    [200, 'unknown'],
  ] as Array<[number, ErrorCode]>)('HTTP %i is %s', (status, code) => {
    expect(classifyStatus(status)).toBe(code);
  });

  it('a 400 saying the prompt is too long is a context overflow, not a bad request', () => {
    expect(classifyStatus(400, 'prompt is too long: 210000 tokens > 200000 maximum')).toBe(
      'context_overflow',
    );
    expect(classifyStatus(400, 'input exceeds the context window')).toBe('context_overflow');
    expect(classifyStatus(400, 'messages: field required')).toBe('invalid_request');
  });
});

describe('classifyAssistantError', () => {
  it.each([
    ['authentication_failed', 'authentication'],
    ['oauth_org_not_allowed', 'authentication'],
    ['cloud_credential_error', 'authentication'],
    ['billing_error', 'permission'],
    ['account_on_hold', 'permission'],
    ['rate_limit', 'rate_limit'],
    ['overloaded', 'overloaded'],
    ['server_error', 'server_error'],
    ['invalid_request', 'invalid_request'],
    ['model_not_found', 'invalid_request'],
    ['max_output_tokens', 'context_overflow'],
    ['unknown', 'unknown'],
    ['something_new', 'unknown'],
  ] as Array<[string, ErrorCode]>)('%s is %s', (error, code) => {
    expect(classifyAssistantError(error)).toBe(code);
  });
});

describe('classifyResult', () => {
  it('a successful result is no error', () => {
    expect(classifyResult({ subtype: 'success', is_error: false, result: 'done' })).toBeNull();
  });

  it('error_max_turns is max_turns and not transient', () => {
    expect(classifyResult({ subtype: 'error_max_turns', is_error: true, errors: [] })).toMatchObject({
      code: 'max_turns',
      transient: false,
    });
  });

  it('error_max_budget_usd is budget_exceeded', () => {
    expect(classifyResult({ subtype: 'error_max_budget_usd', is_error: true })).toMatchObject({
      code: 'budget_exceeded',
      transient: false,
    });
  });

  it('a "success" result flagged is_error with an API status is classified by the status', () => {
    const info = classifyResult({
      subtype: 'success',
      is_error: true,
      result: 'API Error: 500 scripted api_error.',
      api_error_status: 500,
      terminal_reason: 'api_error',
    });
    expect(info).toEqual({
      code: 'server_error',
      message: 'API Error: 500 scripted api_error.',
      transient: true,
      status: 500,
    });
  });

  it('a 401 result is authentication and not transient', () => {
    expect(
      classifyResult({
        subtype: 'success',
        is_error: true,
        result: 'Invalid API key',
        api_error_status: 401,
      }),
    ).toMatchObject({ code: 'authentication', transient: false, status: 401 });
  });

  it.each([
    ['prompt_too_long', 'context_overflow'],
    ['blocking_limit', 'context_overflow'],
    ['max_turns', 'max_turns'],
    ['budget_exhausted', 'budget_exceeded'],
    ['aborted_streaming', 'cancelled'],
    ['aborted_tools', 'cancelled'],
  ] as Array<[string, ErrorCode]>)('terminal reason %s is %s', (terminalReason, code) => {
    expect(
      classifyResult({
        subtype: 'error_during_execution',
        is_error: true,
        errors: ['[ede_diagnostic] result_type=user'],
        terminal_reason: terminalReason,
      })?.code,
    ).toBe(code);
  });

  it('without a status or terminal reason, the error text decides', () => {
    expect(
      classifyResult({ subtype: 'error_during_execution', is_error: true, errors: ['socket hang up'] }),
    ).toMatchObject({ code: 'network', message: 'socket hang up', transient: true });
    expect(
      classifyResult({ subtype: 'error_during_execution', is_error: true, errors: ['a', 'b'] }),
    ).toMatchObject({ code: 'unknown', message: 'a; b', transient: false });
  });
});

describe('classifyError', () => {
  it('an AbortError is cancelled', () => {
    const error = new Error('This operation was aborted');
    error.name = 'AbortError';
    expect(classifyError(error)).toEqual({
      code: 'cancelled',
      message: 'This operation was aborted',
      transient: false,
    });
  });

  it('an error with an HTTP status is classified by the status', () => {
    const error = Object.assign(new Error('Overloaded'), { status: 529 });
    expect(classifyError(error)).toEqual({
      code: 'overloaded',
      message: 'Overloaded',
      transient: true,
      status: 529,
    });
  });

  it.each(['ECONNRESET', 'ECONNREFUSED', 'ENOTFOUND', 'EPIPE'])(
    'a system error with code %s is a transient network error',
    (code) => {
      const error = Object.assign(new Error('read failed'), { code });
      expect(classifyError(error)).toEqual({ code: 'network', message: 'read failed', transient: true });
    },
  );

  it.each([
    ['Claude Code returned an error result: 401 Invalid API key', 'authentication'],
    ['403 Forbidden', 'permission'],
    ['Rate limit reached', 'rate_limit'],
    ['Overloaded', 'overloaded'],
    ['Request timed out', 'timeout'],
    ['fetch failed', 'network'],
    ['502 Bad Gateway', 'server_error'],
    ['Reached maximum turns', 'max_turns'],
    ['Claude Code process aborted by user', 'cancelled'],
    ['something else entirely', 'unknown'],
  ] as Array<[string, ErrorCode]>)('an error saying "%s" is %s', (message, code) => {
    expect(classifyError(new Error(message)).code).toBe(code);
  });

  it('a thrown non-Error value is classified by its text', () => {
    expect(classifyError('ECONNRESET')).toEqual({ code: 'network', message: 'ECONNRESET', transient: true });
  });
});

describe('transient codes', () => {
  it.each([
    ['rate_limit', true],
    ['overloaded', true],
    ['server_error', true],
    ['timeout', true],
    ['network', true],
    ['authentication', false],
    ['permission', false],
    ['invalid_request', false],
    ['budget_exceeded', false],
    ['max_turns', false],
    ['context_overflow', false],
    ['cancelled', false],
    ['unknown', false],
  ] as Array<[ErrorCode, boolean]>)('%s transient: %s', (code, transient) => {
    expect(isTransient(code)).toBe(transient);
    expect(errorInfo(code, 'x').transient).toBe(transient);
  });

  it('errorInfo keeps a status only when there is one', () => {
    expect(errorInfo('rate_limit', 'slow down', 429)).toEqual({
      code: 'rate_limit',
      message: 'slow down',
      transient: true,
      status: 429,
    });
    expect(errorInfo('network', 'reset')).not.toHaveProperty('status');
  });
});
