// A real npm registry (Verdaccio) for tests/integration/npm-install.test.ts, run by Node: storage in argv[2], no
// uplink (nothing is fetched from the internet), anyone may publish. Listens on a port the kernel picks on
// 127.0.0.1 and prints {"port":N} once it does.
import { runServer } from "verdaccio";

const storage = process.argv[2];
const app = await runServer({
  storage,
  self_path: storage,
  uplinks: {},
  packages: { "**": { access: "$all", publish: "$all", unpublish: "$all" } },
  auth: { htpasswd: { file: `${storage}/htpasswd`, max_users: -1 } },
  log: { type: "stdout", format: "json", level: "error" },
  // bsk's package holds a ~110 MB binary (about 55 MB packed, more as JSON on the wire).
  max_body_size: "500mb",
});
const server = app.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: server.address().port })));
