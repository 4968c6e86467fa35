/** Types of actionable.mjs (plain JS: Playwright's half runs it under Node). */
export const ACTIONABLE_SELECTOR: string;
export const MARK_ATTRIBUTE: string;
export const COLLECT_ACTIONABLE: string;
export const MARK_ACTIONABLE: string;
