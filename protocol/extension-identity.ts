/**
 * The extension's pinned identity. The manifest carries KEY (base64 DER public key), which fixes the id
 * Chromium gives the unpacked extension; the daemon allows EXTENSION_ID by default.
 * id = first 32 hex digits of sha256(DER), with 0-9a-f mapped to a-p (a unit test checks this).
 */
export const EXTENSION_KEY =
  "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAvCHAU/46TYVTLn6mqJvyEg9XoNmrr5pUu5rjAd2PsB0J3T6UWyix1MJ+vMVNaNeAiV3odF7C/mO66L7Die72JUXkrk793dDjOCXW4LJh0zdyN1e1p5PgU0+aUWf4Cb6XJ89Mumi6c+G78Oj2N6RcVa27QxXNneJJptm2pr1p8vV1bojfDxt/4wW7IL/vYqEkLInIwo7YFoOcwLjdBSITIwHKHd9YkZsQZN92qcK+aa3DAsGW2C711uSz4ys90kmLcdG6RAEmpbuChYdUJSBsnz7049FB0zVNgxHHtGuOXhYCd83khOSuyJ2gvf+4Hm2jhuTlSKKpEeu2PTvMxjxpiQIDAQAB";
export const EXTENSION_ID = "mmgjjcpeaknlocpgodfmbngemnnhomck";
