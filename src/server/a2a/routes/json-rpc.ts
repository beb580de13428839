import { isLegacyJsonRpcMethod, isV1JsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { A2A_ERROR_CODE, ContentTypeNotSupportedError } from '@a2a-js/sdk/errors';
import { type A2ARequestHandler, JsonRpcTransportHandler, validateVersion } from '@a2a-js/sdk/server';
import type { Hono } from 'hono';
import { z } from 'zod';
import { toA2aError } from '../errors.js';
import { callContext, isLegacyVersion, versionHeader } from './call-context.js';
import { isAsyncIterable, sseResponse } from './sse.js';

type JsonRpcId = string | number | null;

/** A JSON-RPC 2.0 request as the spec defines it; the SDK would answer other shapes with -32602. */
const envelopeSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  method: z.string().min(1),
  id: z.union([z.string(), z.int(), z.null()]).optional(),
});

const idOf = (body: unknown): JsonRpcId => {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
};

/**
 * The JSON-RPC binding on `paths`, through the SDK's transport handlers: v1.0 method names
 * (`SendMessage` …), and the v0.3 ones (`message/send`, `message/stream`, `tasks/get`,
 * `tasks/cancel` …) through the SDK's compat layer. `A2A-Version` picks the version; without it the
 * method name does (v0.3 clients such as kagent's controller send none).
 */
export function registerJsonRpcRoutes(
  app: Hono,
  paths: readonly string[],
  handler: A2ARequestHandler,
  options: { heartbeatMs?: number } = {},
): void {
  const v1 = new JsonRpcTransportHandler(handler);
  const legacy = new LegacyJsonRpcTransportHandler(handler);
  for (const path of paths) {
    app.post(path, async (c) => {
      const contentType = c.req.header('content-type');
      const mediaType = contentType?.split(';', 1)[0]?.trim().toLowerCase();
      if (contentType && mediaType !== 'application/json' && mediaType !== 'application/a2a+json') {
        const error = new ContentTypeNotSupportedError(
          `Unsupported Content-Type "${contentType}"; expected application/json.`,
        );
        return c.json({ jsonrpc: '2.0', id: null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
      }
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        return c.json({
          jsonrpc: '2.0',
          id: null,
          error: { code: A2A_ERROR_CODE.PARSE_ERROR, message: 'Invalid JSON payload.' },
        });
      }
      const envelope = envelopeSchema.safeParse(body);
      if (!envelope.success)
        return c.json({
          jsonrpc: '2.0',
          id: idOf(body),
          error: { code: A2A_ERROR_CODE.INVALID_REQUEST, message: 'Invalid JSON-RPC Request.' },
        });
      const header = c.req.header(versionHeader);
      const method = envelope.data.method;
      const useLegacy = header
        ? isLegacyVersion(header)
        : isLegacyJsonRpcMethod(method) || !isV1JsonRpcMethod(method);
      const requestedVersion = header ?? (useLegacy ? '0.3' : '1.0');
      const mapError = useLegacy
        ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
        : JsonRpcTransportHandler.mapToJSONRPCError;
      const id = idOf(body);
      const errorEnvelope = (error: unknown) => ({ jsonrpc: '2.0', id, error: mapError(toA2aError(error)) });
      try {
        const context = callContext(c, { requestedVersion, legacy: useLegacy });
        validateVersion(context.requestedVersion, await handler.getAgentCard(), 'JSONRPC');
        const result = await (useLegacy ? legacy : v1).handle(envelope.data, context);
        if (!isAsyncIterable(result)) return c.json(result);
        const iterator = result[Symbol.asyncIterator]();
        let first: IteratorResult<unknown>;
        try {
          first = await iterator.next();
        } catch (error) {
          // Nothing was sent yet: a plain JSON-RPC error response, not a stream (see docs/a2a.md).
          return c.json(errorEnvelope(error));
        }
        return sseResponse({
          first,
          iterator,
          encode: (item) => item,
          encodeError: errorEnvelope,
          ...options,
        });
      } catch (error) {
        const envelope = errorEnvelope(error);
        return c.json(envelope, envelope.error.code === A2A_ERROR_CODE.INTERNAL_ERROR ? 500 : 200);
      }
    });
  }
}
