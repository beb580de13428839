import { authHeaders, errorOf, get } from './client.js';
import type { JournalEvent } from './types.js';

export type StreamState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface FollowOptions {
  sessionId: string;
  /** Events after this cursor. @default 0 */
  after?: number;
  /** Called with events in cursor order, each exactly once. */
  onEvents: (events: JournalEvent[]) => void;
  onState?: (state: StreamState, detail?: string) => void;
}

export interface Follower {
  /** The last cursor delivered. */
  readonly cursor: number;
  close(): void;
}

const retryMs = [250, 500, 1000, 2000, 4000];

/**
 * Follows a session's journal over SSE. `EventSource` cannot send a bearer token, so this reads the
 * stream with fetch and does what EventSource does on a drop: reconnect with `Last-Event-ID` set to
 * the last cursor seen. The server resumes right after it, so nothing is missed; anything at or
 * below the cursor is dropped here too, so nothing is shown twice.
 */
export function followEvents(options: FollowOptions): Follower {
  let cursor = options.after ?? 0;
  let stopped = false;
  let controller: AbortController | null = null;
  let attempt = 0;

  const deliver = (events: JournalEvent[]) => {
    const fresh: JournalEvent[] = [];
    for (const event of events) {
      if (event.cursor !== cursor + 1) continue;
      cursor = event.cursor;
      fresh.push(event);
    }
    if (fresh.length > 0) options.onEvents(fresh);
  };

  const connect = async (): Promise<void> => {
    controller = new AbortController();
    options.onState?.(attempt === 0 ? 'connecting' : 'reconnecting');
    const response = await fetch(`/v1/sessions/${encodeURIComponent(options.sessionId)}/events/stream`, {
      headers: { Accept: 'text/event-stream', 'Last-Event-ID': String(cursor), ...authHeaders() },
      signal: controller.signal,
      cache: 'no-store',
    });
    if (!response.ok) {
      const error = await errorOf(response);
      // A refused token or an unknown session will not get better by retrying.
      if (response.status === 401 || response.status === 404) stopped = true;
      throw error;
    }
    options.onState?.('open');
    attempt = 0;
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, '\n');
      const batch: JournalEvent[] = [];
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('data:')) data += (data ? '\n' : '') + line.slice(5).replace(/^ /, '');
        }
        if (data) batch.push(JSON.parse(data) as JournalEvent);
      }
      deliver(batch);
    }
  };

  /** What is already journaled comes in pages (quicker than one SSE message per event). */
  const backfill = async () => {
    for (;;) {
      const page = await get<{ events: JournalEvent[]; hasMore: boolean }>(
        `/v1/sessions/${encodeURIComponent(options.sessionId)}/events?after=${cursor}&limit=1000`,
      );
      if (stopped) return;
      deliver(page.events);
      if (!page.hasMore || page.events.length === 0) return;
    }
  };

  const loop = async () => {
    try {
      await backfill();
    } catch {
      // The stream below reads from wherever the pages stopped.
    }
    while (!stopped) {
      try {
        await connect();
      } catch (error) {
        if (stopped) break;
        options.onState?.('reconnecting', error instanceof Error ? error.message : String(error));
      }
      if (stopped) break;
      const wait = retryMs[Math.min(attempt, retryMs.length - 1)] ?? 4000;
      attempt++;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    options.onState?.('closed');
  };
  void loop();

  return {
    get cursor() {
      return cursor;
    },
    close() {
      stopped = true;
      controller?.abort();
    },
  };
}
