import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isNode, LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { InvalidInputError } from '../errors/index.js';
import { type Seed, seedSchema } from './seed-schema.js';

/** A seed as read from a file: validated, with its working directory made absolute. */
export interface LoadedSeed {
  seed: Seed;
  /** The directory the agent works in and the checks run in. */
  cwd: string;
}

/** `criteria[1].check`: a zod issue's path as a person writes it. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text ? `.${String(part)}` : String(part);
  }
  return text || '(the seed)';
}

/** What a zod issue says, in the words of the seed's author. */
function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    const received = /received (\w+)/.exec(issue.message)?.[1];
    if (received === 'undefined') return 'required';
    return `expected ${article(issue.expected)}${received ? `, got ${received}` : ''}`;
  }
  if (issue.code === 'unrecognized_keys') return 'unknown field';
  return issue.message.replace(/^Invalid input: /, '');
}

function article(type: string): string {
  if (type === 'array' || type === 'object' || type === 'integer') return `an ${type}`;
  return `a ${type}`;
}

/**
 * Parses a seed from YAML or JSON text (JSON is YAML). Every error names the field and its line:
 * `criteria[1].check: expected a string, got number, line 14`. Throws `InvalidInputError`.
 */
export function parseSeed(text: string, options: { source?: string } = {}): Seed {
  const source = options.source ? `${options.source}: ` : '';
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lineOf = (offset: number | undefined) =>
    offset === undefined ? undefined : lineCounter.linePos(offset).line;
  const [syntax] = document.errors;
  if (syntax) {
    const line = lineOf(syntax.pos[0]);
    throw new InvalidInputError(
      `${source}not valid YAML or JSON: ${firstLine(syntax.message)}, line ${line}`,
      {
        line,
      },
    );
  }
  const value: unknown = document.toJS();
  const parsed = seedSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const line = lineOf(nodeOffset(document, path as PropertyKey[]));
  const field = fieldPath(path);
  throw new InvalidInputError(
    `${source}${field}: ${issueMessage(issue)}${line === undefined ? '' : `, line ${line}`}`,
    { field, ...(line === undefined ? {} : { line }) },
  );
}

/** Where the nearest node on `path` starts: the value itself, else its key, else its parent. */
function nodeOffset(document: ReturnType<typeof parseDocument>, path: PropertyKey[]): number | undefined {
  for (let length = path.length; length >= 0; length--) {
    const node = length === 0 ? document.contents : document.getIn(path.slice(0, length), true);
    if (isNode(node) && node.range) return node.range[0];
    // A missing field: point at its parent mapping.
  }
  return undefined;
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

/** Reads and validates a seed file; a relative `cwd` resolves against the file's directory. */
export function loadSeedFile(file: string): LoadedSeed {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidInputError(`cannot read seed file ${file}${code ? ` (${code})` : ''}`, { file });
  }
  const seed = parseSeed(text, { source: file });
  const base = dirname(resolve(file));
  return { seed, cwd: resolve(base, seed.cwd ?? '.') };
}

/** Validates a seed given as a value (the HTTP API's JSON body, a library caller's object): errors name the field. */
export function validateSeed(value: unknown): Seed {
  const parsed = seedSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = fieldPath(issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path);
  throw new InvalidInputError(`${field}: ${issueMessage(issue)}`, { field });
}
