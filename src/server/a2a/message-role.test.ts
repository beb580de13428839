import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../errors/index.js';
import { a2aInputText } from './message-commands.js';
import { requestedRole, roleMetadataKey } from './message-role.js';

describe('the role a message names', () => {
  it('is the string under metadata "agentd.role"; none without it', () => {
    expect(roleMetadataKey).toBe('agentd.role');
    expect(requestedRole({ metadata: { 'agentd.role': 'reviewer' } })).toBe('reviewer');
    expect(requestedRole({ metadata: undefined })).toBeUndefined();
    expect(requestedRole({ metadata: { other: 1 } })).toBeUndefined();
    expect(requestedRole({ metadata: { 'agentd.role': null } })).toBeUndefined();
  });

  it('anything but a non-empty string there is invalid_input, never silently dropped', () => {
    for (const value of [42, true, ['reviewer'], { name: 'reviewer' }, '', '  ']) {
      expect(() => requestedRole({ metadata: { 'agentd.role': value } })).toThrow(InvalidInputError);
    }
  });
});

describe('the command protocol over A2A', () => {
  it('text is text; //text is /text; /compact is the command', () => {
    expect(a2aInputText('hello')).toBe('hello');
    expect(a2aInputText('//etc/hosts is a file')).toBe('/etc/hosts is a file');
    expect(a2aInputText('/compact')).toBe('/compact');
  });

  it('an unknown command is unknown_command; the others are invalid_input over A2A', () => {
    expect(() => a2aInputText('/bogus')).toThrow(expect.objectContaining({ code: 'unknown_command' }));
    for (const command of ['/status', '/stop', '/new', '/help'])
      expect(() => a2aInputText(command)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => a2aInputText('/compact now')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });
});
