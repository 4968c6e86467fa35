// Where this platform's bsk binary is: in the optional dependency that npm installed for this os and cpu.
// scripts/release/npm.ts fills in the version and the package table when it writes the npm package.
const { existsSync, readFileSync } = require("node:fs");
const { dirname, join } = require("node:path");

const NAME = "__NAME__";
const VERSION = "__VERSION__";
const PACKAGES = __PACKAGES__;

/** { bin } or { error, hint }. */
function nativeBinary() {
  const key = `${process.platform} ${process.arch}`;
  const pkg = PACKAGES[key];
  if (!pkg) return { error: `bsk has no binary for ${key}`, hint: `It ships for ${Object.keys(PACKAGES).join(", ")}.` };
  let manifest;
  try {
    manifest = require.resolve(`${pkg}/package.json`);
  } catch {
    return {
      error: `${pkg}, which holds bsk's binary for ${key}, is not installed`,
      hint: `npm left out the optional dependency (--omit=optional?): reinstall with npm i -g ${NAME}@${VERSION}`,
    };
  }
  const version = JSON.parse(readFileSync(manifest, "utf8")).version;
  if (version !== VERSION)
    return { error: `${pkg} is ${version}, not ${VERSION}`, hint: `Reinstall both together: npm i -g ${NAME}@${VERSION}` };
  const bin = join(dirname(manifest), "bin", process.platform === "win32" ? "bsk.exe" : "bsk");
  if (!existsSync(bin)) return { error: `${bin} is missing`, hint: `Reinstall: npm i -g ${NAME}@${VERSION}` };
  return { bin };
}

module.exports = { nativeBinary, NAME, VERSION };
