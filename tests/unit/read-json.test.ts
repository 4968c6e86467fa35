import { afterAll, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { readJsonFile } from "../../shared/read-json.ts";
import { tempDir } from "../temp.ts";

const d = tempDir("bsk-read-json-");
afterAll(() => rmSync(d, { recursive: true, force: true }));

test("a missing, malformed, binary or non-file daemon.json reads as absent, never as a half-parsed value", () => {
  expect(readJsonFile(`${d}/missing.json`)).toBeUndefined();
  writeFileSync(`${d}/truncated.json`, '{"cli_port": 1234, "pid":');
  expect(readJsonFile(`${d}/truncated.json`)).toBeUndefined();
  writeFileSync(`${d}/binary.json`, new Uint8Array([0xff, 0xfe, 0x00, 0x7b]));
  expect(readJsonFile(`${d}/binary.json`)).toBeUndefined();
  mkdirSync(`${d}/dir.json`);
  expect(readJsonFile(`${d}/dir.json`)).toBeUndefined();
  writeFileSync(`${d}/ok.json`, '{"cli_port": 1234}');
  expect(readJsonFile(`${d}/ok.json`)).toEqual({ cli_port: 1234 });
});
