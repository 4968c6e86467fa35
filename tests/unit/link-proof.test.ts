/** The CLI link's proof (shared/link-proof.ts) as pure logic: both sides, and each way a peer without the key fails. */
import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import {
  answerDaemon,
  clientHello,
  LINK_LABELS,
  linkMac,
  LinkProofServer,
  sameMac,
  tcpTransport,
  unixTransport,
} from "../../shared/link-proof.ts";

const key = crypto.getRandomValues(new Uint8Array(32));
const otherKey = crypto.getRandomValues(new Uint8Array(32));
const T = unixTransport("/tmp/h/run/daemon.sock");

/** A whole exchange: the lines each side sends, and what each concluded. */
function exchange(clientKey: Uint8Array, serverKey: Uint8Array, clientT = T, serverT = T) {
  const server = new LinkProofServer(serverKey, serverT);
  const hello = clientHello();
  const first = server.take(hello.line.trimEnd());
  if (first.kind !== "reply") throw new Error(`server did not answer the hello: ${JSON.stringify(first)}`);
  const answer = answerDaemon(clientKey, clientT, hello, first.line.trimEnd());
  return { server, hello, first, answer, last: answer.ok ? server.take(answer.line.trimEnd()) : undefined };
}

describe("link proof", () => {
  test("the same key on both sides: each proves itself to the other in one round trip", () => {
    const { answer, last } = exchange(key, key);
    expect(answer.ok).toBe(true);
    expect(last).toEqual({ kind: "proven" });
  });

  test("the MAC is HMAC-SHA256 over label, transport and both nonces (node:crypto agrees)", () => {
    const mac = linkMac(key, LINK_LABELS.daemon, T, "nc", "nd");
    const node = createHmac("sha256", key).update(`${LINK_LABELS.daemon}\n${T}\nnc\nnd`).digest("base64url");
    expect(mac).toBe(node);
    expect(linkMac(key, LINK_LABELS.cli, T, "nc", "nd")).not.toBe(mac);
  });

  test("an impostor server without the key: the client refuses its answer and sends no proof", () => {
    const { answer, last } = exchange(key, otherKey);
    expect(answer).toEqual({ ok: false, why: "its proof does not match this home's link key" });
    expect(last).toBeUndefined();
  });

  test("a client without the key: whatever it MACs the daemon's nonce with is refused", () => {
    const server = new LinkProofServer(key, T);
    const hello = clientHello();
    const first = server.take(hello.line.trimEnd());
    const reply = JSON.parse(first.kind === "reply" ? first.line : "{}") as { nonce: string };
    const forged = linkMac(otherKey, LINK_LABELS.cli, T, hello.nonce, reply.nonce);
    expect(server.take(JSON.stringify({ link: "proof", proof: forged }))).toEqual({
      kind: "refused",
      why: "its proof does not match this home's link key",
    });
  });

  test("a request before the hello is refused, and nothing is answered to it", () => {
    const server = new LinkProofServer(key, T);
    expect(server.take(JSON.stringify({ id: "1", method: "system.status" })).kind).toBe("refused");
    expect(new LinkProofServer(key, T).take("not json").kind).toBe("refused");
    expect(new LinkProofServer(key, T).take(JSON.stringify({ link: "hello", v: 1, nonce: "short" })).kind).toBe("refused");
    expect(new LinkProofServer(key, T).take(JSON.stringify({ link: "hello", v: 2, nonce: "x".repeat(43) })).kind).toBe("refused");
  });

  test("a client proof replayed on another connection fails (the daemon's nonce is new)", () => {
    const one = exchange(key, key);
    expect(one.last).toEqual({ kind: "proven" });
    // Another connection: same hello replayed, then the first connection's proof line.
    const server = new LinkProofServer(key, T);
    expect(server.take(one.hello.line.trimEnd()).kind).toBe("reply");
    expect(server.take(one.answer.ok ? one.answer.line.trimEnd() : "").kind).toBe("refused");
  });

  test("a daemon proof replayed to another hello fails (the client's nonce is new)", () => {
    const one = exchange(key, key);
    const again = answerDaemon(key, T, clientHello(), one.first.kind === "reply" ? one.first.line.trimEnd() : "");
    expect(again.ok).toBe(false);
  });

  test("a daemon proof reflected back as the client's fails (the label names the direction)", () => {
    const server = new LinkProofServer(key, T);
    const hello = clientHello();
    const first = server.take(hello.line.trimEnd());
    const reply = JSON.parse(first.kind === "reply" ? first.line : "{}") as { proof: string };
    expect(server.take(JSON.stringify({ link: "proof", proof: reply.proof })).kind).toBe("refused");
  });

  test("a proof relayed from another transport fails (a listener elsewhere forwarding to the real daemon)", () => {
    const relayed = exchange(key, key, tcpTransport(40001), tcpTransport(40002));
    expect(relayed.answer.ok).toBe(false);
    expect(exchange(key, key, unixTransport("/tmp/other.sock"), T).answer.ok).toBe(false);
    expect(exchange(key, key, T, tcpTransport(40002)).answer.ok).toBe(false);
  });

  test("an older daemon's protocol_error to the hello is said as such", () => {
    const hello = clientHello();
    const answer = answerDaemon(
      key,
      T,
      hello,
      JSON.stringify({ id: null, error: { code: "protocol_error", message: "frame is neither a request, a response nor an event" } }),
    );
    expect(answer).toEqual({ ok: false, why: "it answered the hello with an error (frame is neither a request, a response nor an event)" });
  });

  test("sameMac compares whole strings only", () => {
    expect(sameMac("abc", "abc")).toBe(true);
    expect(sameMac("abd", "abc")).toBe(false);
    expect(sameMac("ab", "abc")).toBe(false);
    expect(sameMac(undefined, "abc")).toBe(false);
  });
});
