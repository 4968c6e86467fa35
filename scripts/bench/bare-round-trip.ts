/**
 * The least a safe round trip does, for `--floor` (./floor.ts): the socket check (shared/socket-check.ts), the link
 * proof both ways (shared/link-proof.ts, the key from shared/link-key.ts), one `system.status`, one line printed.
 * Compiled like dist/bsk and timed against the empty program, it is the floor of a round trip with bsk's safety
 * checks: what bsk's call path adds is what it costs above this.
 */
import { bskHome, homePaths } from "../../shared/home.ts";
import { readLinkKey } from "../../shared/link-key.ts";
import { answerDaemon, clientHello, unixTransport } from "../../shared/link-proof.ts";
import { checkSocket } from "../../shared/socket-check.ts";

const paths = homePaths(bskHome(process.env), process.env);
if (!checkSocket(paths.socket)) throw new Error(`no daemon at ${paths.socket}`);
const key = readLinkKey(paths.linkKey);
const hello = clientHello();
const { promise: replied, resolve, reject } = Promise.withResolvers<string>();
let buffered = "";
let proven = false;
const socket = await Bun.connect({
  unix: paths.socket,
  socket: {
    data(s, chunk) {
      buffered += new TextDecoder().decode(chunk);
      for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (proven) return resolve(line);
        const answer = answerDaemon(key, unixTransport(paths.socket), hello, line);
        if (!answer.ok) return reject(new Error(answer.why));
        proven = true;
        const request = {
          id: "1",
          method: "system.status",
          params: {},
          meta: { trace_id: "bare", timeout_ms: 30_000, client_pid: process.pid },
        };
        s.write(`${answer.line}${JSON.stringify(request)}\n`);
      }
    },
    close: () => reject(new Error("the daemon closed the connection")),
  },
});
socket.write(hello.line);
const reply = JSON.parse(await replied);
socket.end();
console.log(`daemon: running (pid ${reply.result.daemon.pid})`);
process.exit(0);
