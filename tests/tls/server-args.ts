/** `daemon start --mode server …` on loopback, as the remote-mode tests and the load test start it. */
export function serverModeArgs(port: number, publicUrl: string, tls?: { cert: string; key: string }, trustedProxy?: string): string[] {
  const args = ["daemon", "start", "--mode", "server", "--listen", "127.0.0.1", "--port", String(port), "--public-url", publicUrl];
  if (tls) args.push("--tls-cert", tls.cert, "--tls-key", tls.key);
  if (trustedProxy) args.push("--trusted-proxy", trustedProxy);
  return args;
}
