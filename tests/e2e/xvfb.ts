/**
 * A virtual X display for tests that need the headed browser (its print dialog, bubbles and menus exist only there).
 * Xvfb picks a free display number itself and writes it to a pipe (-displayfd), so nothing probes for one.
 */
import { spawn } from "node:child_process";

export interface Display {
  display: string;
  stop(): Promise<void>;
}

/** Null when Xvfb is not installed (`apt-get install xvfb`; .ci/run installs it). */
export async function startXvfb(): Promise<Display | null> {
  if (!Bun.which("Xvfb")) return null;
  const child = spawn("Xvfb", ["-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"], {
    stdio: ["ignore", "ignore", "ignore", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const number = await new Promise<string>((resolve, reject) => {
    let got = "";
    child.stdio[3]!.on("data", (d: Buffer) => {
      got += d.toString();
      if (got.includes("\n")) resolve(got.trim());
    });
    void exited.then(() => reject(new Error("Xvfb exited before it chose a display")));
  });
  return {
    display: `:${number}`,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
