import { describe, expect, it } from 'vitest';
import { parseSeed, validateSeed } from './seed-file.js';
import { seedJsonSchema } from './seed-schema.js';

/** The message of the error `action` throws, with its code. */
function failure(action: () => unknown): { code: string; message: string } {
  try {
    action();
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
  throw new Error('expected an error');
}

const good = `goal: Ship it
criteria:
  - id: tests
    description: the tests pass
    check: npm test
    expect: 0
    timeout: 300
  - id: notes
    description: release notes are written
constraints:
  - no new dependencies
maxIterations: 2
`;

describe('seed files', () => {
  it('parseSeed: YAML and the same seed as JSON read alike', () => {
    const seed = parseSeed(good);
    expect(seed).toMatchObject({ goal: 'Ship it', maxIterations: 2, constraints: ['no new dependencies'] });
    expect(seed.criteria.map((criterion) => criterion.id)).toEqual(['tests', 'notes']);
    expect(parseSeed(JSON.stringify(seed, null, 2))).toEqual(seed);
  });

  it('parseSeed: an error names the field and its line', () => {
    const wrongType = good.replace('check: npm test', 'check: 14');
    expect(failure(() => parseSeed(wrongType, { source: 'seed.yaml' }))).toEqual({
      code: 'invalid_input',
      message: 'seed.yaml: criteria[0].check: expected a string, got number, line 5',
    });
    expect(
      failure(() => parseSeed(good.replace('    description: release notes are written\n', ''))).message,
    ).toBe('criteria[1].description: required, line 8');
    expect(failure(() => parseSeed(`${good}colour: blue\n`)).message).toBe('colour: unknown field, line 13');
    expect(failure(() => parseSeed(good.replace('id: notes', 'id: tests'))).message).toBe(
      'criteria[1].id: duplicate criterion id tests, line 8',
    );
    expect(failure(() => parseSeed('goal: [x\n')).message).toMatch(/^not valid YAML or JSON: .*, line \d+$/);
  });

  it('validateSeed: a value (an HTTP body) is checked by the same schema, field named', () => {
    expect(
      failure(() => validateSeed({ goal: 'x', criteria: [{ id: 'a', description: 'd', timeout: -1 }] }))
        .message,
    ).toBe('criteria[0].timeout: Too small: expected number to be >0');
  });

  it('seedJsonSchema: publishes the fields', () => {
    const schema = seedJsonSchema() as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['goal', 'criteria', 'maxIterations', 'budgetUsd']),
    );
    expect(schema.required).toEqual(['goal', 'criteria']);
  });
});
