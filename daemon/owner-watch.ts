/** Sessions bound to an owner process end when it exits: one poller for all of them, running only while needed. */
import { pidAlive } from "../shared/pid.ts";

export class OwnerWatch {
  private readonly owners = new Map<string, number>();
  private timer: Timer | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly onExit: (sessionId: string, pid: number) => void,
    private readonly alive: (pid: number) => boolean = pidAlive,
  ) {}

  watch(sessionId: string, pid: number): void {
    this.owners.set(sessionId, pid);
    this.timer ??= setInterval(() => this.poll(), this.intervalMs);
  }

  unwatch(sessionId: string): void {
    this.owners.delete(sessionId);
    if (this.owners.size === 0) this.stop();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  poll(): void {
    for (const [sessionId, pid] of [...this.owners]) {
      if (!this.alive(pid)) {
        this.unwatch(sessionId);
        this.onExit(sessionId, pid);
      }
    }
  }
}
