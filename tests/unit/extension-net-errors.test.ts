/** Which network errors prove the request never left the browser (a navigation's effect_state `none`). */
import { expect, test } from "bun:test";
import { requestNeverSent } from "../../extension/src/shared/net-errors.ts";

test("errors before any request reached a server are never-sent; the rest may have reached it", () => {
  for (const e of ["net::ERR_NAME_NOT_RESOLVED", "net::ERR_CONNECTION_REFUSED", "net::ERR_UNSAFE_PORT", "ERR_CERT_DATE_INVALID"]) {
    expect(requestNeverSent(e)).toBe(true);
  }
  for (const e of ["net::ERR_CONNECTION_RESET", "net::ERR_EMPTY_RESPONSE", "net::ERR_TIMED_OUT", "net::ERR_ABORTED", ""]) {
    expect(requestNeverSent(e)).toBe(false);
  }
});
