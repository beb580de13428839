import { formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from '@a2a-js/sdk';

/** Milliseconds between `: keep-alive` comments on a quiet stream, so proxies keep it open. */
export const defaultHeartbeatMs = 15_000;

/**
 * An SSE response from a stream whose first item has already been read (so a failure before the
 * first event could still be answered as a plain error). A quiet stream gets comment lines (which
 * A2A clients skip) every `heartbeatMs`; a client that goes away ends the stream.
 */
export function sseResponse<T>(options: {
  first: IteratorResult<T>;
  iterator: AsyncIterator<T>;
  encode: (item: T) => unknown;
  encodeError: (error: unknown) => unknown;
  heartbeatMs?: number;
}): Response {
  const encoder = new TextEncoder();
  const heartbeatMs = options.heartbeatMs ?? defaultHeartbeatMs;
  let next: Promise<IteratorResult<T>> | undefined = Promise.resolve(options.first);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      next ??= options.iterator.next();
      let timer: NodeJS.Timeout | undefined;
      const quiet = new Promise<'quiet'>((resolve) => {
        timer = setTimeout(() => resolve('quiet'), heartbeatMs);
      });
      try {
        const result = await Promise.race([next, quiet]);
        if (result === 'quiet') {
          controller.enqueue(encoder.encode(': keep-alive\n\n'));
          return;
        }
        next = undefined;
        if (result.done) controller.close();
        else controller.enqueue(encoder.encode(formatSSEEvent(options.encode(result.value))));
      } catch (error) {
        controller.enqueue(encoder.encode(formatSSEErrorEvent(options.encodeError(error))));
        controller.close();
      } finally {
        clearTimeout(timer);
      }
    },
    cancel() {
      // Not awaited: a generator waiting for its next event only returns once that event comes.
      void options.iterator.return?.(undefined)?.catch(() => undefined);
    },
  });
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS } });
}

export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}
