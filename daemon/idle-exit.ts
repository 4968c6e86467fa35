/** The daemon leaves by itself after a stretch with no CLI connection, no browser and no live session. */
export class IdleExit {
  private timer: Timer | undefined;

  constructor(
    private readonly ms: number,
    private readonly isIdle: () => boolean,
    private readonly onIdle: () => void,
  ) {}

  /** Call whenever a connection, browser or session comes or goes. */
  check(): void {
    if (!this.isIdle()) return this.stop();
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      if (this.isIdle()) this.onIdle();
    }, this.ms);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
