/**
 * The floors, checked (`npm run deps`; tests/unit/floors.test.ts runs the same check inside `npm test`).
 *
 * Top-level folders, bottom to top (each may import only what is below it):
 *   protocol/   the wire vocabulary shared by every process: methods, frames, errors, releases' names and checks.
 *               Pure: imports nothing of ours outside protocol/ (package.json for the version aside) and does no I/O.
 *   shared/     what the CLI and the daemon (one binary) both use on this machine: $BSK_HOME's layout, atomic files,
 *               pids, capped fetches, the signed release manifest, update state. Never used by the extension.
 *   skill/      the agent skill (SKILL.md) and its installer: the CLI installs it, the daemon keeps copies current.
 *   daemon/     the daemon process. The extension runs in the browser: daemon/ and extension/ never import each other.
 *   extension/  the MV3 extension; its src/ folders are layered (below).
 *   cli/        on top: reaches daemon/ only through the entries that run a daemon part in-process.
 * scripts/ and tests/ may import anything shipped; shipped code never imports them; scripts/ never imports tests/
 * (tests import scripts to test them, so the arrow runs one way).
 *
 * Shipped code has no import cycle (type-only imports count: a cycle of types is still a knot for the reader).
 */

/** Shipped code: what ends in dist/bsk or dist/extension. */
const SHIPPED = "^(protocol|shared|daemon|extension|cli|skill)/";

/**
 * extension/src folders, top to bottom. Each may import only the folders after it in this list (and its own files);
 * extension/entrypoints sits above all of them.
 */
const EXTENSION_LAYERS = ["link", "dispatch", "tools", "features", "page", "session", "cdp", "ports", "shared"];

/** One rule per extension layer below the top one: nothing in it imports a layer above it. */
const extensionLayerRules = EXTENSION_LAYERS.slice(1).map((layer, i) => ({
  name: `extension-${layer}-imports-only-below`,
  comment: `extension/src/${layer}/ may import only ${EXTENSION_LAYERS.slice(i + 2).join(", ") || "its own files"} (extension/README.md).`,
  severity: "error",
  from: { path: `^extension/src/${layer}/` },
  to: { path: `^extension/src/(${EXTENSION_LAYERS.slice(0, i + 1).join("|")})/` },
}));

module.exports = {
  forbidden: [
    {
      name: "no-cycle-in-shipped-code",
      comment:
        "Shipped code has no import cycle: move the shared piece down a floor instead. A lazy import() is a plug-in point, " +
        "not a floor: the CLI's command table names each command's implementation with one (loaded only when that " +
        "command runs), so a loop that passes through a lazy import() is not counted; every static import still is.",
      severity: "error",
      from: { path: SHIPPED },
      to: { circular: true, viaOnly: { dependencyTypesNot: ["dynamic-import"] } },
    },
    {
      name: "protocol-imports-nothing-of-ours",
      comment: "protocol/ is the wire vocabulary at the bottom: it imports only protocol/ (and package.json for the version).",
      severity: "error",
      from: { path: "^protocol/" },
      to: { path: "^(shared|daemon|extension|cli|skill|scripts|tests|bench)/" },
    },
    {
      name: "protocol-does-no-io",
      comment: "protocol/ computes and checks; reading files, sockets, processes and the network happen above it.",
      severity: "error",
      from: { path: "^protocol/" },
      to: { dependencyTypes: ["core"], path: "^(node:)?(fs|fs/promises|net|http|https|http2|child_process|dgram|tls|worker_threads)$" },
    },
    {
      name: "shared-imports-only-protocol",
      comment: "shared/ sits just above protocol/: it imports protocol/ and itself, never a process's own code.",
      severity: "error",
      from: { path: "^shared/" },
      to: { path: "^(cli|daemon|extension|skill)/" },
    },
    {
      name: "skill-imports-only-shared-and-protocol",
      comment: "skill/ (SKILL.md and its installer) sits above shared/: the CLI and the daemon import it, not the reverse.",
      severity: "error",
      from: { path: "^skill/" },
      to: { path: "^(cli|daemon|extension)/" },
    },
    {
      name: "daemon-not-extension",
      comment: "The daemon and the extension are two processes: they share protocol/ only.",
      severity: "error",
      from: { path: "^daemon/" },
      to: { path: "^extension/" },
    },
    {
      name: "extension-not-daemon-shared-or-cli",
      comment: "The extension runs in the browser: it shares protocol/ only (dev tools of it live in tests/).",
      severity: "error",
      from: { path: "^extension/" },
      to: { path: "^(daemon|shared|cli|skill)/" },
    },
    {
      name: "daemon-not-cli",
      comment: "The CLI sits on top of the daemon: what both need lives in shared/ (or protocol/, skill/).",
      severity: "error",
      from: { path: "^daemon/" },
      to: { path: "^cli/" },
    },
    {
      name: "cli-reaches-daemon-only-through-its-entries",
      comment:
        "cli/ runs daemon parts in-process through their entries only (daemon/main.ts: `bsk daemon run`; " +
        "daemon/native-host/host.ts: the native messaging host Chrome starts). Anything else both need lives in shared/.",
      severity: "error",
      from: { path: "^cli/" },
      to: { path: "^daemon/", pathNot: "^daemon/(main\\.ts|native-host/host\\.ts)$" },
    },
    {
      name: "shipped-not-scripts-or-tests",
      comment: "scripts/ and tests/ may import shipped code; shipped code never imports them.",
      severity: "error",
      from: { path: SHIPPED },
      to: { path: "^(scripts|tests|bench)/" },
    },
    {
      name: "scripts-not-tests",
      comment: "tests/ import scripts/ (to test the release and build scripts); the arrow never runs back.",
      severity: "error",
      from: { path: "^scripts/" },
      to: { path: "^tests/" },
    },
    {
      name: "extension-src-inside-a-layer",
      comment: `Every file of extension/src lives in one of its layer folders (${EXTENSION_LAYERS.join(", ")}).`,
      severity: "error",
      from: {},
      to: { path: `^extension/src/(?!(${EXTENSION_LAYERS.join("|")})/)` },
    },
    {
      name: "extension-entrypoints-not-imported",
      comment: "extension/entrypoints sit above every extension/src layer: nothing in src imports them.",
      severity: "error",
      from: { path: "^extension/src/" },
      to: { path: "^extension/entrypoints/" },
    },
    ...extensionLayerRules,
  ],
  options: {
    exclude: { path: "^extension/(\\.output|\\.wxt)/|^dist/|node_modules" },
    doNotFollow: { path: "node_modules" },
    // Type-only imports count: they are arrows a reader follows, and a cycle of them is still a cycle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".json"],
    },
    skipAnalysisNotInRules: true,
  },
};
