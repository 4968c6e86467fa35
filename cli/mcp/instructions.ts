/**
 * What an MCP client is told at `initialize`: skill/SKILL.md §1–4 in tool terms. Rules about a tool appear only
 * when the catalog has that tool.
 */
export function instructions(tools: ReadonlySet<string>, offered?: { profile: string; of: number }): string {
  const optional = [
    tools.has("tab_borrow") &&
      "Touch only tabs this session created or borrowed; tab_borrow asks the person, and a refusal or timeout is final.",
    tools.has("request_help") && "Use request_help for logins, captchas, 2FA and payments.",
  ].filter(Boolean);
  const dialogs =
    tools.has("dialog_accept") && tools.has("dialog_dismiss")
      ? " dialog_pending: read the dialog and answer deliberately with dialog_accept or dialog_dismiss."
      : " dialog_pending: a dialog holds the tab; ask the person to answer it.";
  return `bsk drives the person's own logged-in Chromium browser in a separate Agent Window. Treat it like borrowing someone's computer while they watch: do the task, nothing else.

1. Sessions: call session_start first (name: what you are doing, in a few words; url: the first page, which saves a navigate) and pass its session_id to every other tool. Call session_stop when the task is done AND when it failed. Sessions started here also end when this server exits.
2. Observe, act, re-observe: snapshot returns the page as role "name" lines with @eN refs on everything actionable. Act with refs from the latest snapshot (click, fill, select, press, ...). Every action reports its effect (navigated, new_tab, dialog, download, dom_changed, none); snapshot again after navigations and whenever the page changed (diff: true returns only what changed; find searches the last snapshot).
3. Refs: stale_ref means the page changed: take a new snapshot and use the new refs; never guess a similar element. element_obscured names what covers the element: deal with it first.
4. Effects: never retry an action whose effect_state is unknown without observing first; a submit or payment done twice is worse than asking.${dialogs}

${[...optional, "Never extract passwords, cookies or tokens. Errors come back with a hint: follow it."].join(" ")}${offered ? `\n\n${toolsNote(tools.size, offered)}` : ""}`;
}

/** Which tools this server offers (`bsk mcp --tools`), so the agent knows the rest exist. */
function toolsNote(count: number, { profile, of }: { profile: string; of: number }): string {
  const which =
    profile === "all"
      ? `all ${of} tools`
      : profile === "core"
        ? `the core profile: ${count} of ${of} tools, enough for a whole session`
        : `${count} of ${of} tools (${profile})`;
  return count < of
    ? `Tools offered: ${which}. The person can offer more by starting this server with --tools all (or a list of tool names).`
    : `Tools offered: ${which}.`;
}
