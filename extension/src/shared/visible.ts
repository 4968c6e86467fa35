/**
 * Whether the person can really see an element of bsk's: the browser's own answer (IntersectionObserver v2,
 * `trackVisibility`): on screen, not covered by anything (the top layer included), not made transparent, filtered or
 * transformed by an ancestor. A page can do all of that to the overlay's host, from outside its closed shadow root.
 */

/** How often the browser re-checks visibility (IntersectionObserver v2 allows 100 ms at least). */
const VISIBLE_CHECK_MS = 100;

/** Calls `onChange` whenever the browser's answer to "can the person see all of `el`?" changes. Returns a stop. */
export function watchVisible(el: Element, onChange: (visible: boolean) => void): () => void {
  const observer = new IntersectionObserver(
    (entries) => {
      const last = entries.at(-1) as (IntersectionObserverEntry & { isVisible?: boolean }) | undefined;
      if (last) onChange(last.isVisible === true);
    },
    { threshold: [1], trackVisibility: true, delay: VISIBLE_CHECK_MS } as IntersectionObserverInit,
  );
  observer.observe(el);
  return () => observer.disconnect();
}
