import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from './api/client.js';

export interface Polled<T> {
  data: T | null;
  error: ApiError | Error | null;
  refresh: () => void;
}

/**
 * Reads `load` now and every `intervalMs` while the tab is visible: the inbox's view of a server
 * that has no cross-session stream. Every answer replaces the last; nothing is kept apart from it.
 */
export function usePoll<T>(
  load: () => Promise<T>,
  intervalMs: number,
  deps: readonly unknown[] = [],
): Polled<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const tick = useRef<() => void>(() => {});
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      clearTimeout(timer);
      try {
        const value = await load();
        if (!stopped) {
          setData(value);
          setError(null);
        }
      } catch (caught) {
        if (!stopped) setError(caught instanceof Error ? caught : new Error(String(caught)));
      }
      if (!stopped) timer = setTimeout(run, document.hidden ? intervalMs * 5 : intervalMs);
    };
    tick.current = () => void run();
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, deps);
  return { data, error, refresh: () => tick.current() };
}
