const ENTER_ALTERNATE_SCREEN = "\x1b[?1049h\x1b[?25l";
const LEAVE_ALTERNATE_SCREEN = "\x1b[?25h\x1b[?1049l";
const HOME = "\x1b[H";
const CLEAR_TO_LINE_END = "\x1b[K";
const CLEAR_BELOW = "\x1b[J";
const CTRL_C = "\x03";

/**
 * A full-screen view on a terminal: the alternate screen while it runs, redrawn in place, and the terminal given back
 * as it was (screen, cursor, input mode) when it stops. `stopped` resolves on `q`, Ctrl-C, SIGINT or SIGTERM.
 */
export class LiveScreen {
  readonly stopped: Promise<void>;
  readonly #output: NodeJS.WriteStream;
  readonly #input: NodeJS.ReadStream;
  readonly #rawInput: boolean;
  readonly #onKey = (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    if (text.includes("q") || text.includes("Q") || text.includes(CTRL_C)) this.#stop();
  };
  readonly #onSignal = () => this.#stop();
  #stop: () => void = () => undefined;
  #open = false;

  constructor(output: NodeJS.WriteStream = process.stdout, input: NodeJS.ReadStream = process.stdin) {
    this.#output = output;
    this.#input = input;
    this.#rawInput = input.isTTY === true;
    this.stopped = new Promise((resolve) => {
      this.#stop = resolve;
    });
  }

  /** The size to draw for. */
  get size(): { columns: number; rows: number } {
    return { columns: this.#output.columns || 80, rows: this.#output.rows || 24 };
  }

  /** Switches to the alternate screen and starts listening for `q`, Ctrl-C and the signals. */
  open(): void {
    this.#open = true;
    this.#output.write(ENTER_ALTERNATE_SCREEN);
    process.on("SIGINT", this.#onSignal);
    process.on("SIGTERM", this.#onSignal);
    if (this.#rawInput) {
      this.#input.setRawMode(true);
      this.#input.on("data", this.#onKey);
      this.#input.resume();
    }
  }

  /** Replaces the screen's content with `lines`. */
  draw(lines: readonly string[]): void {
    this.#output.write(`${HOME}${lines.map((line) => `${line}${CLEAR_TO_LINE_END}`).join("\r\n")}${CLEAR_BELOW}`);
  }

  /** Calls `listener` when the terminal is resized; returns the unsubscribe. */
  onResize(listener: () => void): () => void {
    this.#output.on("resize", listener);
    return () => this.#output.off("resize", listener);
  }

  /** Gives the terminal back as it was; idempotent. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    process.off("SIGINT", this.#onSignal);
    process.off("SIGTERM", this.#onSignal);
    if (this.#rawInput) {
      this.#input.off("data", this.#onKey);
      this.#input.setRawMode(false);
      this.#input.pause();
    }
    this.#output.write(LEAVE_ALTERNATE_SCREEN);
    this.#stop();
  }
}
