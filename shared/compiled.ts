/** Running from `bun build --compile` output (the module lives in Bun's embedded file system), not from a checkout. */
export function isCompiled(main = Bun.main): boolean {
  return main.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/.test(main);
}
