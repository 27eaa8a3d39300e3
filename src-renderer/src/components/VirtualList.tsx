import { useCallback, useLayoutEffect, useMemo, useReducer, useRef, useState, type ReactNode } from 'react';

export interface VirtualListProps<T> {
  items: T[];
  itemKey: (item: T) => string;
  /** First guess of a row's height; rows are measured once they render. */
  estimate: number;
  render: (item: T, index: number) => ReactNode;
  /** Keep the view pinned to the newest row while the reader is at the bottom (chat). */
  stickToBottom?: boolean;
  /** Near the top: load older rows. */
  onReachTop?: () => void;
  className?: string;
  ariaLabel: string;
  role?: string;
  overscanPx?: number;
  /** Shown in place of the rows when there are none. */
  empty?: ReactNode;
  testId?: string;
  /** Bring this row into view (a new object each time it is asked, e.g. jump to first unread, keyboard focus). */
  reveal?: { key: string; align?: 'start' | 'nearest' };
}

/**
 * A windowed list: only the rows near the viewport are in the DOM. Heights are measured
 * after render; the first visible row is kept in place when rows are added above it
 * (older history) or measured rows turn out taller than the estimate.
 */
export function VirtualList<T>(p: VirtualListProps<T>) {
  const { items, itemKey, estimate, stickToBottom = false, overscanPx = 600 } = p;
  const scroller = useRef<HTMLDivElement>(null);
  const rowsBox = useRef<HTMLDivElement>(null);
  const heights = useRef(new Map<string, number>());
  const [measureVersion, bumpMeasure] = useReducer((x: number) => x + 1, 0);
  const [view, setView] = useState({ top: 0, height: 600 });
  const atBottom = useRef(true);
  const anchor = useRef<{ key: string; delta: number } | null>(null);
  const reachTop = useRef(p.onReachTop);
  reachTop.current = p.onReachTop;

  const layout = useMemo(() => {
    const offsets = new Float64Array(items.length + 1);
    const index = new Map<string, number>();
    for (let i = 0; i < items.length; i++) {
      const k = itemKey(items[i]!);
      index.set(k, i);
      offsets[i + 1] = offsets[i]! + (heights.current.get(k) ?? estimate);
    }
    return { offsets, index };

  }, [items, itemKey, estimate, measureVersion]);

  const total = layout.offsets[items.length] ?? 0;
  const find = (y: number) => {
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (layout.offsets[mid + 1]! <= y) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const start = Math.max(0, find(view.top - overscanPx));
  const end = Math.min(items.length, find(view.top + view.height + overscanPx) + 1);

  const rememberAnchor = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 4;
    const i = find(el.scrollTop);
    const item = items[i];
    anchor.current = item ? { key: itemKey(item), delta: el.scrollTop - layout.offsets[i]! } : null;
  }, [items, layout]);

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    rememberAnchor();
    setView({ top: el.scrollTop, height: el.clientHeight });
    if (el.scrollTop < 300) reachTop.current?.();
  }, [rememberAnchor]);

  // Measure the rendered rows; a change re-lays out before paint.
  useLayoutEffect(() => {
    const box = rowsBox.current;
    if (!box) return;
    let changed = false;
    for (const child of Array.from(box.children) as HTMLElement[]) {
      const k = child.dataset.key;
      if (!k) continue;
      const h = child.offsetHeight;
      if (h > 0 && heights.current.get(k) !== h) {
        heights.current.set(k, h);
        changed = true;
      }
    }
    if (changed) bumpMeasure();
  });

  // Keep the reader's place: pinned to the bottom, or the anchored row where it was.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    // A scroll whose event has not been handled yet (new rows landed first) is the reader's
    // latest place: take it, or the stale anchor would throw the view back.
    if (Math.abs(el.scrollTop - view.top) > 1) rememberAnchor();
    if (stickToBottom && atBottom.current) {
      if (Math.abs(el.scrollTop - (el.scrollHeight - el.clientHeight)) > 1) el.scrollTop = el.scrollHeight;
    } else if (anchor.current) {
      const i = layout.index.get(anchor.current.key);
      if (i !== undefined) {
        const want = layout.offsets[i]! + anchor.current.delta;
        if (Math.abs(el.scrollTop - want) > 1) el.scrollTop = want;
      }
    }
    if (el.scrollTop !== view.top || el.clientHeight !== view.height) setView({ top: el.scrollTop, height: el.clientHeight });
  }, [layout, total]);

  const reveal = p.reveal;
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || !reveal) return;
    const i = layout.index.get(reveal.key);
    if (i === undefined) return;
    const top = layout.offsets[i]!;
    const bottom = layout.offsets[i + 1]!;
    let want = el.scrollTop;
    if (reveal.align === 'start' || top < el.scrollTop) want = top;
    else if (bottom > el.scrollTop + el.clientHeight) want = bottom - el.clientHeight;
    if (Math.abs(want - el.scrollTop) > 1) {
      el.scrollTop = want;
      atBottom.current = el.scrollHeight - want - el.clientHeight < 4;
      anchor.current = { key: reveal.key, delta: want - top };
      setView({ top: want, height: el.clientHeight });
    }
    // Only a new request moves the view; re-layouts keep the reader's place.
  }, [reveal]);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setView({ top: el.scrollTop, height: el.clientHeight }));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const rows: ReactNode[] = [];
  for (let i = start; i < end; i++) {
    const item = items[i]!;
    const k = itemKey(item);
    rows.push(
      <div key={k} data-key={k} className="vrow">
        {p.render(item, i)}
      </div>,
    );
  }

  return (
    <div ref={scroller} className={`vlist ${p.className ?? ''}`} onScroll={onScroll} tabIndex={0} role={p.role} aria-label={p.ariaLabel} data-testid={p.testId}>
      {items.length === 0 && p.empty}
      <div style={{ height: layout.offsets[start] ?? 0 }} aria-hidden="true" />
      <div ref={rowsBox}>{rows}</div>
      <div style={{ height: total - (layout.offsets[end] ?? total) }} aria-hidden="true" />
    </div>
  );
}
