/**
 * A peer on the daemon's named pipe that holds no link key, compiled for windows-x64 and run under Wine by the
 * windows-x64 lane (windows-x64.ts) to show the proof on connect refusing it both ways:
 *   pipe-peer send <pipe> <line>      a keyless client: connects, sends <line> first, prints all it gets until closed
 *   pipe-peer listen <pipe> <log>     an impostor daemon: listens on <pipe>, appends every byte it receives to <log>,
 *                                     answers a hello with a made-up proof; creates <log>.ready once it listens
 */
import { appendFileSync, writeFileSync } from "node:fs";

const [mode, pipe, arg] = process.argv.slice(2);
if (!pipe || !arg || (mode !== "send" && mode !== "listen")) {
  console.error("usage: pipe-peer send <pipe> <line> | pipe-peer listen <pipe> <log>");
  process.exit(2);
}

if (mode === "send") {
  const done = Promise.withResolvers<void>();
  let got = "";
  await Bun.connect({
    unix: pipe,
    socket: {
      open: (s) => void s.write(`${arg}\n`),
      data: (_s, chunk) => void (got += new TextDecoder().decode(chunk)),
      close: () => done.resolve(),
      error: (_s, err) => done.reject(err),
    },
  });
  await done.promise;
  process.stdout.write(got);
} else {
  writeFileSync(arg, "");
  const made = "A".repeat(43);
  Bun.listen({
    unix: pipe,
    socket: {
      data(s, chunk) {
        appendFileSync(arg, chunk);
        if (new TextDecoder().decode(chunk).includes('"link":"hello"'))
          s.write(`${JSON.stringify({ link: "proof", nonce: made, proof: made })}\n`);
      },
    },
  });
  writeFileSync(`${arg}.ready`, "");
}
