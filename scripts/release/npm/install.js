// npm's install script. On Linux and macOS the `bsk` command npm linked (bin/bsk, a Node entry) is replaced by a
// link to the native binary, once that binary has answered as this version: then no Node runs on an agent's call.
// Anything short of that keeps the Node entry, which works everywhere (and bsk doctor says what it costs).
const { spawnSync } = require("node:child_process");
const { renameSync, rmSync, symlinkSync } = require("node:fs");
const { join, relative } = require("node:path");
const { nativeBinary, VERSION } = require("./native.js");

const say = (line) => process.stderr.write(`bsk: ${line}\n`);

function main() {
  if (process.platform === "win32") return say("on Windows npm runs commands through Node; bsk keeps its Node entry");
  const found = nativeBinary();
  if (found.error) return say(`${found.error}; keeping the Node entry (${found.hint})`);
  const ran = spawnSync(found.bin, ["version"], { encoding: "utf8", timeout: 60_000, env: { ...process.env, BSK_AUTO_UPDATE: "off" } });
  const answer = `${ran.stdout ?? ""}`.trim();
  if (ran.status !== 0 || !answer.startsWith(`bsk ${VERSION} `))
    return say(
      `${found.bin} did not answer as bsk ${VERSION} (${answer || ran.error?.message || `exit ${ran.status}`}); keeping the Node entry`,
    );
  const entry = join(__dirname, "bsk");
  const temp = `${entry}.${process.pid}.tmp`;
  try {
    symlinkSync(relative(__dirname, found.bin), temp);
    renameSync(temp, entry);
  } catch (err) {
    rmSync(temp, { force: true });
    return say(`could not link ${entry} to ${found.bin} (${err.message}); keeping the Node entry`);
  }
}

main();
