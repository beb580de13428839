import type { Context } from 'hono';
import type { z } from 'zod';
import { InvalidInputError } from '../../errors/index.js';
import { HttpRequestError } from './errors.js';

function issuesOf(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
}

/** Parses a value with a schema; a mismatch is `invalid_input` listing every issue. */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = issuesOf(parsed.error);
  const first = issues[0];
  const summary = first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'invalid';
  throw new InvalidInputError(`invalid ${what}: ${summary}`, { issues });
}

/**
 * The request's JSON body, checked against a schema. An empty body counts as `{}` so that routes
 * whose fields are all optional can be called without one; malformed JSON is `invalid_json`.
 */
export async function readJson<T extends z.ZodType>(context: Context, schema: T): Promise<z.output<T>> {
  const text = await context.req.text();
  let value: unknown = {};
  if (text.trim() !== '') {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new HttpRequestError({
        code: 'invalid_json',
        message: `request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }
  return parseWith(schema, value, 'request body');
}

export function readQuery<T extends z.ZodType>(context: Context, schema: T): z.output<T> {
  return parseWith(schema, context.req.query(), 'query');
}
