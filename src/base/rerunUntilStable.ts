/**
 * Runs a synchronous pass, and again while it was asked for during the previous pass: a change
 * that a pass itself causes (an event it fires, a listener that calls back) is folded into one
 * more pass instead of a nested one. At most `maxPasses` in a row, so two services that keep
 * disturbing each other cannot loop forever.
 */
export class RerunUntilStable {
  private running = false;
  private requested = false;

  constructor(
    private readonly pass: () => void,
    private readonly maxPasses = 10,
  ) {}

  run(): void {
    if (this.running) {
      this.requested = true;
      return;
    }
    this.running = true;
    try {
      let passes = 0;
      do {
        this.requested = false;
        this.pass();
      } while (this.requested && ++passes < this.maxPasses);
    } finally {
      this.running = false;
    }
  }
}
