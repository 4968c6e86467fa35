/** The e2e tests' way into an extension page; it lives in scripts/ because the platform lane uses it too. */
export { enterPairingCode, evalInPage } from "../../scripts/page-eval.ts";
