import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

export interface VirtualListProps<T> {
  items: readonly T[];
  keyOf: (item: T) => string;
  render: (item: T) => ComponentChildren;
  /** Changes whenever the items do (the model's version), so the list draws again. */
  version: number;
  /** Height assumed for a row not measured yet. @default 64 */
  estimate?: number;
  /** Pixels drawn beyond each edge of the viewport. @default 600 */
  overscan?: number;
  label: string;
}

/**
 * A scrolling list that puts only the rows on screen (and a margin) in the DOM: a session with
 * 10,000 events draws a few dozen rows. Rows are measured once drawn; unmeasured ones count as
 * `estimate`. Scrolled to the end, it stays at the end as rows arrive (a live log).
 */
export function VirtualList<T>(props: VirtualListProps<T>) {
  const { items, keyOf, render, estimate = 64, overscan = 600 } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const heights = useRef(new Map<string, number>());
  const atEnd = useRef(true);
  /** Where the list last scrolled itself to (to its end), to tell the reader's scrolling from rows arriving. */
  const pinnedTop = useRef<number | null>(null);
  const [, redraw] = useState(0);
  const [view, setView] = useState({ top: 0, height: 800 });

  const onScroll = useCallback(() => {
    const element = scroller.current;
    if (!element) return;
    // Rows that arrive move the end away without the reader scrolling: only leaving the place the
    // list put itself at unpins it.
    if (isAtBottom(element)) atEnd.current = true;
    else if (pinnedTop.current === null || movedFrom(element, pinnedTop.current)) atEnd.current = false;
    setView({ top: element.scrollTop, height: element.clientHeight });
  }, []);

  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const observer = new ResizeObserver(onScroll);
    observer.observe(element);
    return () => observer.disconnect();
  }, [onScroll]);

  let offset = 0;
  let start = -1;
  let startOffset = 0;
  let end = items.length;
  for (let index = 0; index < items.length; index++) {
    const height = heights.current.get(keyOf(items[index]!)) ?? estimate;
    if (start < 0 && offset + height >= view.top - overscan) {
      start = index;
      startOffset = offset;
    }
    if (start >= 0 && end === items.length && offset > view.top + view.height + overscan) end = index;
    offset += height;
  }
  const total = offset;
  if (start < 0) start = items.length;
  const visible = items.slice(start, end);

  const rows = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    let changed = false;
    for (const child of Array.from(rows.current?.children ?? [])) {
      const key = (child as HTMLElement).dataset.key;
      const height = (child as HTMLElement).offsetHeight;
      if (key !== undefined && heights.current.get(key) !== height) {
        heights.current.set(key, height);
        changed = true;
      }
    }
    const element = scroller.current;
    // The reader may have scrolled away since the list last pinned itself, and the browser not yet
    // told (it fires scroll events on the next frame): pinning again now would undo their scroll.
    if (
      element &&
      pinnedTop.current !== null &&
      movedFrom(element, pinnedTop.current) &&
      !isAtBottom(element)
    )
      atEnd.current = false;
    if (element && atEnd.current) {
      element.scrollTop = element.scrollHeight;
      pinnedTop.current = element.scrollTop;
      // Already at the bottom, the browser fires no scroll event: the rows on screen are decided
      // from where the list is now, not from where the last event left it.
      if (element.scrollTop !== view.top || element.clientHeight !== view.height)
        setView({ top: element.scrollTop, height: element.clientHeight });
    }
    if (changed) redraw((count) => count + 1);
  });

  return (
    <div ref={scroller} class="virtual-list" onScroll={onScroll} role="log" aria-label={props.label}>
      <div class="virtual-list-space" style={{ height: `${total}px` }}>
        <div ref={rows} class="virtual-list-rows" style={{ transform: `translateY(${startOffset}px)` }}>
          {visible.map((item) => (
            <div key={keyOf(item)} data-key={keyOf(item)} class="virtual-list-row">
              {render(item)}
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}

function isAtBottom(element: HTMLElement): boolean {
  return element.scrollTop + element.clientHeight >= element.scrollHeight - 24;
}

function movedFrom(element: HTMLElement, top: number): boolean {
  return Math.abs(element.scrollTop - top) > 1;
}
