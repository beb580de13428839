import type { z } from 'zod';
import { errorBodySchema } from './schemas.js';

export type Schema = z.ZodType;

/** One documented route. */
export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path, with `{name}` parameters. */
  path: string;
  summary: string;
  tag: string;
  /** A JSON request body. */
  body?: Schema;
  /** A request body that is not JSON: its content types (the body is their bytes). */
  rawBody?: { contentTypes: readonly string[]; description: string };
  query?: z.ZodObject;
  /** Status → description and JSON schema (or another content type, or none). */
  responses: Record<number, { description: string; schema?: Schema; contentType?: string }>;
  /** Reachable without a token. */
  public?: boolean;
}

const errorDescriptions: Record<number, string> = {
  400: 'invalid_input or invalid_json',
  401: 'unauthorized: missing or wrong bearer token',
  402: 'budget_exceeded: a session, role or organization reached its limit',
  403: 'forbidden: the principal lacks a grant the action needs; nothing changed',
  404: 'not_found',
  409: 'conflict or invalid_state',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  503: "credentials_missing: no credentials for the session's provider",
};

/** Error responses by status, each with the Error body; `overrides` give a route's own description. */
export const errors = (...statuses: Array<number | [number, string]>) =>
  Object.fromEntries(
    statuses.map((entry) => {
      const [status, description] = Array.isArray(entry) ? entry : [entry, undefined];
      return [
        status,
        { description: description ?? errorDescriptions[status] ?? 'error', schema: errorBodySchema },
      ];
    }),
  );
