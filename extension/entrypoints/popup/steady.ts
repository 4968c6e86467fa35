/**
 * Holds the popup's re-renders while a pointer button is down in it. The popup refreshes whenever storage changes
 * (the link settling, a session starting or ending elsewhere), and a section that grows or shrinks moves every row
 * below it. Moved between press and release, a click lands on nothing (press on Remove, release on Add, as seen in
 * e2e). Updates that arrive meanwhile run once the click that ends the press has been dispatched.
 */
let pressed = false;
const held = new Map<string, () => void>();

function release(): void {
  if (!pressed) return;
  // After this task: the click (dispatched right after pointerup/mouseup) still sees the layout it was pressed on.
  setTimeout(() => {
    pressed = false;
    const due = [...held.values()];
    held.clear();
    for (const apply of due) apply();
  });
}

addEventListener("pointerdown", () => (pressed = true), true);
addEventListener("pointerup", release, true);
addEventListener("pointercancel", release, true);
// A release outside the popup (a drag out of it) never reaches it.
addEventListener("blur", release);

/** Runs `apply` now, or after the press in progress ends; a later update under the same key replaces a held one. */
export function steady(key: string, apply: () => void): void {
  if (pressed) held.set(key, apply);
  else apply();
}
