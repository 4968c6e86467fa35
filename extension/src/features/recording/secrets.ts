/**
 * Which fields hold secrets a recording must never carry: passwords, one-time codes, card numbers. Decided in the
 * page from the field's own facts, so the clear value never leaves it. Pure (facts in, verdict out) for unit tests.
 */
/** What a secret field's value becomes: the trace's REDACTED_VALUE (protocol/trace.ts, which the page does not import: it brings zod). */
export const REDACTED = "***";

export interface FieldFacts {
  tag: string;
  type: string;
  autocomplete: string;
  name: string;
  id: string;
  label: string;
  placeholder: string;
  inputmode: string;
  /** The maxlength attribute; 0 when absent. */
  maxLength: number;
}

const SECRET_AUTOCOMPLETE = /\b(one-time-code|current-password|new-password|cc-number|cc-csc)\b/i;
/** Words that name a one-time code or a password in ids, names, labels and placeholders (English and Chinese). */
const SECRET_WORDS =
  /(^|[^a-z])(otp|one[-_ ]?time|2fa|mfa|totp|hotp|passcode|pass[-_ ]?word|passwd|pwd|pin|cvv|cvc|csc|verification[-_ ]?code|verify[-_ ]?code|auth[-_ ]?code|security[-_ ]?code|sms[-_ ]?code|login[-_ ]?code)([^a-z]|$)|验证码|动态码|校验码|密码/i;
const CODE_WORD = /(^|[^a-z])code([^a-z]|$)/i;

/** A short numeric field (a code box): inputmode numeric, at most 8 characters. */
function shortNumeric(f: FieldFacts): boolean {
  return (f.inputmode === "numeric" || f.type === "number" || f.type === "tel") && f.maxLength > 0 && f.maxLength <= 8;
}

export function isSecretField(f: FieldFacts): boolean {
  if (f.type === "password") return true;
  if (SECRET_AUTOCOMPLETE.test(f.autocomplete)) return true;
  const words = [f.name, f.id, f.label, f.placeholder].join(" ");
  if (SECRET_WORDS.test(words)) return true;
  return shortNumeric(f) && (f.inputmode === "numeric" || CODE_WORD.test(words));
}

/** URL parameters that carry credentials: the field words above, plus tokens, keys, signatures and OAuth codes. */
const SECRET_PARAM =
  /(^|[^a-z])(token|secret|api[-_]?key|apikey|access[-_]?key|signature|sig|session|sessionid|sid|auth|code|ticket|nonce)([^a-z]|$)/i;

function secretParam(name: string, fieldNames: ReadonlySet<string>): boolean {
  return fieldNames.has(name) || SECRET_WORDS.test(name) || SECRET_PARAM.test(name);
}

function redactParams(params: URLSearchParams, fieldNames: ReadonlySet<string>): boolean {
  let changed = false;
  for (const [name] of [...params]) {
    if (!secretParam(name, fieldNames) || params.getAll(name).every((v) => v === REDACTED)) continue;
    params.set(name, REDACTED);
    changed = true;
  }
  return changed;
}

/**
 * A URL as a trace may keep it: credential-like query (and fragment) parameters, and those named like a secret
 * field of the recording (a GET form sends its password in the URL), become "***". Unparseable URLs are kept as
 * they are only when they have no query at all.
 */
export function redactUrl(url: string, fieldNames: ReadonlySet<string> = new Set()): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url.includes("?") ? `${url.split("?")[0]!}?***` : url;
  }
  let changed = redactParams(u.searchParams, fieldNames);
  if (u.hash.includes("=")) {
    const hash = new URLSearchParams(u.hash.slice(1));
    if (redactParams(hash, fieldNames)) {
      u.hash = hash.toString();
      changed = true;
    }
  }
  return changed ? u.toString().replaceAll("%2A%2A%2A", REDACTED) : url;
}
