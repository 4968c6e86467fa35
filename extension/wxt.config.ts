import { defineConfig } from "wxt";
import pkg from "../package.json" with { type: "json" };
import { EXTENSION_KEY } from "../protocol/extension-identity.ts";

export default defineConfig({
  modules: ["@wxt-dev/module-solid", "@wxt-dev/i18n/module"],
  // Explicit imports everywhere: a reader (and tsc) sees where every name comes from.
  imports: false,
  manifest: {
    key: EXTENSION_KEY,
    // Texts come from locales/*.json (src/shared/i18n.ts), built into _locales/ by @wxt-dev/i18n.
    default_locale: "en",
    name: "__MSG_manifest_name__",
    description: "__MSG_manifest_description__",
    version: pkg.version,
    minimum_chrome_version: "140",
    permissions: [
      "debugger",
      "tabs",
      "windows",
      "storage",
      "alarms",
      "scripting",
      "notifications",
      "webNavigation",
      "nativeMessaging",
      "declarativeNetRequest",
      "webRequest",
      "webRequestAuthProvider",
      "downloads",
      "tabGroups",
    ],
    host_permissions: ["<all_urls>"],
    action: { default_title: "__MSG_manifest_name__" },
    // The help panel's note field (entrypoints/note/) and the approval panel's text (entrypoints/approval-text/),
    // framed by the overlay in any page: only by the per-session dynamic URL, so no site can tell bsk is installed.
    web_accessible_resources: [{ resources: ["note.html", "approval-text.html"], matches: ["<all_urls>"], use_dynamic_url: true }],
    // The overlay (entrypoints/overlay.ts): listed by hand, see there why it is not a WXT content script.
    // The hands (entrypoints/hands.ts): every frame, before the page's scripts, blank and opaque-origin frames too.
    // The page-world script (entrypoints/page-world/) goes only into the tabs bsk debugs, through their attachment (src/features/page-world-script.ts).
    content_scripts: [
      { matches: ["<all_urls>"], js: ["overlay.js"], run_at: "document_end", all_frames: false },
      {
        matches: ["<all_urls>"],
        js: ["hands.js"],
        run_at: "document_start",
        all_frames: true,
        match_about_blank: true,
        match_origin_as_fallback: true,
      },
    ],
  },
});
