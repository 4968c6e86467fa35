/**
 * A throw-away certificate chain made by the test with openssl: a CA, and leaf certificates it signs for the names
 * asked (DNS names and IP addresses). Nothing is trusted system-wide; a test hands the CA to whoever must trust it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../temp.ts";

export interface Leaf {
  cert: string;
  key: string;
  certPem: string;
}

export interface Chain {
  dir: string;
  caCert: string;
  caPem: string;
  /** A leaf for these names (e.g. ["localhost", "127.0.0.1"]), signed by this CA. */
  leaf(name: string, names: string[]): Leaf;
}

function openssl(args: string[], cwd: string): void {
  execFileSync("openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
}

export function makeChain(dir = tempDir("bsk-tls-")): Chain {
  openssl(
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      "ca.key",
      "-out",
      "ca.crt",
      "-days",
      "2",
      "-subj",
      "/CN=bsk test CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    ],
    dir,
  );
  return {
    dir,
    caCert: join(dir, "ca.crt"),
    caPem: readFileSync(join(dir, "ca.crt"), "utf8"),
    leaf(name, names) {
      const san = names.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(",");
      writeFileSync(
        join(dir, `${name}.ext`),
        `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`,
      );
      openssl(
        [
          "req",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:P-256",
          "-nodes",
          "-keyout",
          `${name}.key`,
          "-out",
          `${name}.csr`,
          "-subj",
          `/CN=${names[0]}`,
        ],
        dir,
      );
      openssl(
        [
          "x509",
          "-req",
          "-in",
          `${name}.csr`,
          "-CA",
          "ca.crt",
          "-CAkey",
          "ca.key",
          "-CAcreateserial",
          "-out",
          `${name}.crt`,
          "-days",
          "1",
          "-extfile",
          `${name}.ext`,
        ],
        dir,
      );
      return { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`), certPem: readFileSync(join(dir, `${name}.crt`), "utf8") };
    },
  };
}
