/**
 * Text the agent or the session chose (the session's name, a help request's title and prompt, a recording's purpose)
 * is drawn by the panels' stylesheet from an attribute (`[data-said]::before`), not put in the document as text: the
 * page's `window.find()` and find-in-page search text nodes only, so they cannot spell it out letter by letter.
 */
export function said(el: HTMLElement, text: string): void {
  el.setAttribute("data-said", text);
}
