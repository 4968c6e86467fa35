#!/usr/bin/env node

// The `bsk` command while npm links it through Node: on Windows (npm's command shims run Node), or when npm did not
// run install.js, which puts the native binary here in its place. Runs the binary with the same arguments and stdio,
// and tells it (BSK_NODE_SHIM) so that bsk doctor can say what each call pays.
const { spawnSync } = require("node:child_process");
const { nativeBinary } = require("./native.js");

const found = nativeBinary();
if (found.error) {
  process.stderr.write(`error: ${found.error}\nhint: ${found.hint}\n`);
  process.exit(1);
}
const ran = spawnSync(found.bin, process.argv.slice(2), { stdio: "inherit", env: { ...process.env, BSK_NODE_SHIM: __filename } });
if (ran.error) {
  process.stderr.write(`error: could not run ${found.bin}: ${ran.error.message}\nhint: Reinstall bsk with npm.\n`);
  process.exit(1);
}
if (ran.signal) process.kill(process.pid, ran.signal);
process.exit(ran.status ?? 1);
