import { describe, expect, test } from "bun:test";
import { stepCommand, traceLines } from "../../cli/format-trace.ts";
import { addStep, navCause, notePage, type RawStep, type Trail } from "../../extension/src/features/recording/fold.ts";
import { isSecretField, REDACTED, redactUrl, type FieldFacts } from "../../extension/src/features/recording/secrets.ts";
import { PersonInput } from "../../extension/src/features/recording/page/person.ts";
import { ownOverlayRules } from "../../extension/src/page/own-overlay-in-page.ts";
import { RecordTrace, REDACTED_VALUE, TRACE_VERSION } from "../../protocol/trace.ts";

const AT = "2025-01-01T00:00:00.000Z";
const user = { role: "textbox", name: "Username", tag: "input", selector: "#user" };
const pass = { role: "textbox", name: "Password", tag: "input", selector: "#pass" };
const link = { role: "link", name: "Sign in", tag: "a", selector: "#to-login" };

function trail(): Trail {
  return { pages: [{ id: 1, url: "http://x/start", title: "Start" }], steps: [] };
}

function run(steps: RawStep[]): Trail {
  const t = trail();
  for (const s of steps) addStep(t, s, AT);
  return t;
}

describe("folding steps", () => {
  test("keystrokes in one field fold into one fill with the last value; another field starts a new one", () => {
    const t = run([
      { op: "fill", target: user, value: "a" },
      { op: "fill", target: user, value: "al" },
      { op: "fill", target: user, value: "alice" },
      { op: "fill", target: pass, value: "***", redacted: true },
      { op: "fill", target: pass, value: "***", redacted: true },
    ]);
    expect(t.steps).toEqual([
      { op: "fill", target: user, value: "alice", id: 1, page: 1, at: AT },
      { op: "fill", target: pass, value: "***", redacted: true, id: 2, page: 1, at: AT },
    ]);
  });

  test("a fill after another step in between is a new step", () => {
    const t = run([
      { op: "fill", target: user, value: "a" },
      { op: "press", key: "Tab", modifiers: [], target: user },
      { op: "fill", target: user, value: "b" },
    ]);
    expect(t.steps.map((s) => s.op)).toEqual(["fill", "press", "fill"]);
  });

  test("a navigation opens a page; a redirect or route change right after it folds in, keeping the cause", () => {
    const t = run([
      { op: "click", target: link },
      { op: "navigate", to: "http://x/login", cause: "link" },
      { op: "navigate", to: "http://x/login?next=1", cause: "script" },
      { op: "fill", target: user, value: "alice" },
    ]);
    expect(t.steps.map((s) => s.op)).toEqual(["click", "navigate", "fill"]);
    expect(t.steps[1]).toMatchObject({ to: "http://x/login?next=1", cause: "link", page: 2 });
    expect(t.steps[2]!.page).toBe(2);
    expect(t.pages).toEqual([
      { id: 1, url: "http://x/start", title: "Start" },
      { id: 2, url: "http://x/login?next=1", title: "" },
    ]);
    notePage(t, "http://x/login?next=1", "Sign in");
    expect(t.pages[1]!.title).toBe("Sign in");
  });

  test("a typed navigation right after another is kept; a route change to the same URL is dropped", () => {
    const t = run([
      { op: "navigate", to: "http://x/a", cause: "link" },
      { op: "navigate", to: "http://x/b", cause: "typed" },
      { op: "navigate", to: "http://x/b", cause: "spa" },
    ]);
    expect(t.steps.map((s) => s.op === "navigate" && s.cause)).toEqual(["link", "typed"]);
  });

  test("a double click folds into its click", () => {
    const t = run([
      { op: "click", target: link },
      { op: "click", target: link, count: 2 },
    ]);
    expect(t.steps).toHaveLength(1);
    expect(t.steps[0]).toMatchObject({ op: "click", count: 2 });
  });

  test("webNavigation's transition → cause", () => {
    expect(navCause("link", [])).toBe("link");
    expect(navCause("typed", ["from_address_bar"])).toBe("typed");
    expect(navCause("form_submit", [])).toBe("form_submit");
    expect(navCause("reload", [])).toBe("reload");
    expect(navCause("link", ["forward_back"])).toBe("history");
    expect(navCause("link", ["client_redirect"])).toBe("script");
    expect(navCause("auto_toplevel", [])).toBe("other");
  });
});

describe("secret fields", () => {
  const field = (f: Partial<FieldFacts>): FieldFacts => ({
    tag: "input",
    type: "text",
    autocomplete: "",
    name: "",
    id: "",
    label: "",
    placeholder: "",
    inputmode: "",
    maxLength: 0,
    ...f,
  });

  test.each([
    ["a password field", { type: "password" }],
    ["autocomplete one-time-code", { autocomplete: "one-time-code" }],
    ["autocomplete current-password on a text field (show password)", { autocomplete: "current-password" }],
    ["a card number", { autocomplete: "cc-number" }],
    ["name otp", { name: "otp" }],
    ["id totp_code", { id: "totp_code" }],
    ["label 2FA code", { label: "2FA code" }],
    ["placeholder Verification code", { placeholder: "Verification code" }],
    ["a Chinese label 验证码", { label: "短信验证码" }],
    ["a short numeric box", { inputmode: "numeric", maxLength: 6 }],
    ["a short field named code", { type: "tel", maxLength: 6, name: "code" }],
  ])("%s is secret", (_, f) => expect(isSecretField(field(f))).toBe(true));

  test.each([
    ["a username", { name: "username", autocomplete: "username", label: "Username" }],
    ["a search box", { type: "search", name: "q" }],
    ["a promo code field (not numeric, not short)", { name: "promo_code", label: "Promo code" }],
    ["a postcode (a word containing code)", { name: "postcode", label: "Postcode" }],
    ["a long numeric field", { inputmode: "numeric", maxLength: 20, name: "amount" }],
  ])("%s is not", (_, f) => expect(isSecretField(field(f))).toBe(false));

  test("the page's mask is the trace's", () => expect(REDACTED).toBe(REDACTED_VALUE));
});

describe("secrets in URLs", () => {
  test("credential-like query and fragment parameters become ***; others stay as they were", () => {
    expect(redactUrl("https://x.test/cb?code=abc123&state=xyz&lang=en")).toBe("https://x.test/cb?code=***&state=xyz&lang=en");
    expect(redactUrl("https://x.test/#access_token=T0K&token_type=bearer&expires_in=3600")).toBe(
      "https://x.test/#access_token=***&token_type=***&expires_in=3600",
    );
    expect(redactUrl("https://x.test/dl?file=a.pdf&sig=deadbeef&X-Amz-Signature=f00")).toBe(
      "https://x.test/dl?file=a.pdf&sig=***&X-Amz-Signature=***",
    );
    expect(redactUrl("https://x.test/search?q=shoes&page=2")).toBe("https://x.test/search?q=shoes&page=2");
    expect(redactUrl("https://x.test/#section-2")).toBe("https://x.test/#section-2");
  });

  test("a parameter named like one of the recording's secret fields is redacted, whatever its name", () => {
    expect(redactUrl("https://x.test/login?u=alice&k=hunter2", new Set(["k"]))).toBe("https://x.test/login?u=alice&k=***");
  });

  test("a GET form that sends the password in the URL: the navigation and the page keep no trace of it", () => {
    const secret = "hunter2-in-the-url";
    const t = run([
      { op: "fill", target: { ...user, name_attr: "user" }, value: "alice" },
      { op: "fill", target: { ...pass, name_attr: "pw" }, value: "***", redacted: true },
      { op: "navigate", to: `http://x/welcome?user=alice&pw=${secret}`, cause: "form_submit" },
    ]);
    notePage(t, `http://x/welcome?user=alice&pw=${secret}`, "Welcome");
    expect(JSON.stringify(t)).not.toContain(secret);
    expect(t.steps.at(-1)).toMatchObject({ op: "navigate", to: "http://x/welcome?user=alice&pw=***" });
    expect(t.pages.at(-1)).toMatchObject({ url: "http://x/welcome?user=alice&pw=***", title: "Welcome" });
  });

  test("a link's href in a target is redacted the same way", () => {
    const t = run([{ op: "click", target: { ...link, href: "https://x.test/reset?token=s3cr3t" } }]);
    expect(t.steps[0]).toMatchObject({ target: { href: "https://x.test/reset?token=***" } });
  });
});

describe("trace schema", () => {
  const trace = {
    version: TRACE_VERSION,
    recorded_at: AT,
    started_at: AT,
    stopped_by: "finish",
    start_url: "http://x/start",
    pages: [{ id: 1, url: "http://x/start", title: "Start" }],
    steps: [
      { id: 1, page: 1, at: AT, op: "click", target: link },
      { id: 2, page: 1, at: AT, op: "fill", target: pass, value: "***", redacted: true },
      { id: 3, page: 1, at: AT, op: "select", target: { role: "combobox", name: "Plan", tag: "select" }, values: ["pro"], labels: ["Pro"] },
      { id: 4, page: 1, at: AT, op: "press", key: "Enter", modifiers: [] },
      { id: 5, page: 2, at: AT, op: "navigate", to: "http://x/home", cause: "form_submit" },
      { id: 6, page: 2, at: AT, op: "check", target: { role: "checkbox", name: "Remember me", tag: "input" } },
    ],
  };

  test("a trace validates; unknown fields, ops, causes and versions do not", () => {
    expect(RecordTrace().safeParse(trace).success).toBe(true);
    expect(RecordTrace().safeParse({ ...trace, extra: 1 }).success).toBe(false);
    expect(RecordTrace().safeParse({ ...trace, version: 2 }).success).toBe(false);
    expect(RecordTrace().safeParse({ ...trace, steps: [{ id: 1, page: 1, at: AT, op: "hover", target: link }] }).success).toBe(false);
    expect(RecordTrace().safeParse({ ...trace, steps: [{ ...trace.steps[4], cause: "teleport" }] }).success).toBe(false);
    expect(RecordTrace().safeParse({ ...trace, steps: [{ ...trace.steps[1], redacted: false }] }).success).toBe(false);
  });

  test("steps read as bsk commands; a redacted fill never shows a value", () => {
    const parsed = RecordTrace().parse(trace);
    expect(stepCommand(parsed.steps[0]!).command).toBe("bsk click '#to-login'");
    expect(stepCommand(parsed.steps[1]!)).toEqual({
      command: "bsk fill '#pass' --value-file -",
      note: 'textbox "Password", secret (not recorded)',
    });
    expect(stepCommand(parsed.steps[3]!).command).toBe("bsk press Enter");
    expect(stepCommand(parsed.steps[4]!).command).toBe("# → http://x/home");
    const lines = traceLines(parsed);
    expect(lines[2]).toBe(`3. bsk find 'combobox "Plan"'   # then use its @eN:`);
    expect(lines[3]).toBe("   bsk select @eN --value pro");
    expect(lines.join("\n")).not.toContain("***");
  });

  test("a step inside an iframe is found by role and name (a selector reaches the main frame only), naming the frame", () => {
    const framed = { role: "button", name: "Subscribe", tag: "button", selector: "#sub", frame: "http://localhost:1/inner.html" };
    const t = RecordTrace().parse({ ...trace, steps: [{ id: 1, page: 1, at: AT, op: "click", target: framed }] });
    expect(stepCommand(t.steps[0]!).command).toBe("bsk click @eN");
    expect(traceLines(t)).toEqual([
      `1. bsk find 'button "Subscribe"'   # then use its @eN (in the frame http://localhost:1/inner.html):`,
      "   bsk click @eN",
    ]);
    const pressed = stepCommand({ id: 1, page: 1, at: AT, op: "press", key: "Enter", modifiers: [], target: framed });
    expect(pressed.command).toBe("bsk press Enter");
  });

  test("a frame's address is redacted like any URL", () => {
    const t = run([{ op: "click", target: { ...link, frame: "https://pay.test/widget?session=abc" } }]);
    expect(t.steps[0]).toMatchObject({ target: { frame: "https://pay.test/widget?session=***" } });
  });

  test("shortcuts name their chord as bsk press takes it", () => {
    expect(stepCommand({ id: 1, page: 1, at: AT, op: "press", key: "a", modifiers: ["Control", "Shift"] }).command).toBe(
      "bsk press Ctrl+Shift+a",
    );
  });
});

describe("the person's own edits (page/person.ts)", () => {
  // Plain objects stand in for fields: PersonInput only keys maps by them and reads their value through `read`.
  const field = () => ({ value: "" }) as unknown as Element & { value: string };
  const input = (inputType: string, data: string | null = null) => ({ inputType, data }) as InputEvent;
  const textInput = (data: string) => ({ type: "textInput", data }) as unknown as Event;

  test("a typed character counts; the page's execCommand text, with no textInput behind it, does not", () => {
    const el = field();
    const p = new PersonInput((e) => (e as typeof el).value);
    p.key(el);
    p.before(el);
    p.note(el, textInput("a"));
    el.value = "a";
    expect(p.after(el, input("insertText", "a"))).toBe("a");
    el.value = "a, wire money";
    expect(p.after(el, input("insertText", ", wire money"))).toBeNull();
  });

  test("text the page inserts on the person's key stays out of the person's value", () => {
    const el = field();
    const p = new PersonInput((e) => (e as typeof el).value);
    p.key(el);
    el.value = "EVIL"; // the page's keydown handler
    expect(p.after(el, input("insertText", "EVIL"))).toBeNull();
    p.before(el);
    p.note(el, textInput("x"));
    el.value = "EVILx";
    expect(p.after(el, input("insertText", "x"))).toBe("x");
    p.key(el);
    p.before(el);
    el.value = "EVIL";
    expect(p.after(el, input("deleteContentBackward"))).toBe("");
  });

  test("a textInput stands behind one edit with its own text only", () => {
    const el = field();
    const p = new PersonInput((e) => (e as typeof el).value);
    p.note(el, textInput("hi"));
    p.before(el);
    el.value = "hi";
    expect(p.after(el, input("insertText", "hi"))).toBe("hi");
    el.value = "hihi";
    expect(p.after(el, input("insertText", "hi"))).toBeNull();
  });
});

describe("bsk's own overlay host, known as itself (page/own-overlay-in-page.ts)", () => {
  // Plain objects stand in for elements: the rules read only nodeType, localName and isConnected.
  const el = (localName: string, isConnected = true) => ({ nodeType: 1, localName, isConnected }) as unknown as Element;

  test("an element of the overlay's name is asked about, never taken for bsk's by its name", () => {
    const own = ownOverlayRules(true);
    const [host, fake, button] = [el("bsk-overlay"), el("bsk-overlay"), el("button")];
    expect(own.whose(button)).toBe("page");
    expect(own.whose(null)).toBe("page");
    expect(own.whose(fake)).toBe("ask");
    expect(own.whose(host)).toBe("ask");
    expect(own.whose(fake, true)).toBe("page");
    const [fakeAsk, hostAsk] = [own.asked(fake), own.asked(host)];
    expect(fakeAsk).toBeGreaterThan(0);
    expect(hostAsk).not.toBe(fakeAsk);
    own.told(host);
    expect(own.whose(host)).toBe("own");
    expect(own.whose(fake)).toBe("page");
    expect([own.wasOwn(fakeAsk), own.wasOwn(hostAsk)]).toEqual([false, true]);
    // A second step on the same element (a double click) hears the same.
    expect(own.wasOwn(hostAsk)).toBe(true);
    // While bsk's host is in the document, a new element of that name is the page's without asking.
    expect(own.whose(el("bsk-overlay"))).toBe("page");
  });

  test("a host taken down makes a new one of that name asked about; none told leaves every asked one the page's", () => {
    const own = ownOverlayRules(true);
    const old = { nodeType: 1, localName: "bsk-overlay", isConnected: true };
    own.whose(old as unknown as Element);
    own.told(old as unknown as Element);
    old.isConnected = false;
    const fresh = el("bsk-overlay");
    expect(own.whose(fresh)).toBe("ask");
    own.told(null);
    expect(own.whose(fresh)).toBe("page");
  });

  test("in a frame that is not the tab's top document, nothing is bsk's overlay", () => {
    const own = ownOverlayRules(false);
    expect(own.whose(el("bsk-overlay"))).toBe("page");
  });
});
