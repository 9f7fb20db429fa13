import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";

const run = promisify(execFile);
const TMUX = "/usr/bin/tmux";
const POLL_MS = 50;

/** How a program in the pane ended, once it has. */
export interface PaneExit {
  readonly status: number;
  /** True when the program left the alternate screen it entered. */
  readonly alternateScreenLeft: boolean;
  /** True when the cursor is visible again. */
  readonly cursorVisible: boolean;
}

/** What the pane prints after its program, to tell its exit status while the pane (and its terminal state) lives on. */
const EXIT_MARK = "pane-program-exited-with=";

/** One tmux pane of a fixed size on a private tmux server (`tmux -L <random>`), for driving a full-screen program. */
export class TmuxPane {
  readonly #socket = `distlock-test-${randomUUID()}`;

  /** Starts the private server with one pane of `columns` × `rows`. */
  static async open(columns: number, rows: number): Promise<TmuxPane> {
    const pane = new TmuxPane();
    await pane.#tmux("-f", "/dev/null", "new-session", "-d", "-s", "test", "-x", String(columns), "-y", String(rows), "cat");
    return pane;
  }

  /** Replaces the pane's program with `argv`; when it exits, the pane prints its status and stays open for inspection. */
  async start(argv: readonly string[]): Promise<void> {
    const command = `${argv.map(shellQuote).join(" ")}; echo "${EXIT_MARK}$?"; exec cat`;
    await this.#tmux("respawn-pane", "-k", "-t", "test", command);
  }

  /** The visible screen as text. */
  async screen(): Promise<string> {
    return (await this.#tmux("capture-pane", "-p", "-t", "test")).stdout;
  }

  /** Resolves with the screen once `check(screen)` holds, polling; fails with the last screen after `timeoutMs`. */
  async waitForScreen(what: string, check: (screen: string) => boolean, timeoutMs = 15_000): Promise<string> {
    let last = "";
    await this.#poll(
      timeoutMs,
      async () => {
        last = await this.screen();
        return check(last);
      },
      () => `${what}; the screen was:\n${last}`,
    );
    return last;
  }

  /** Sends keys as `tmux send-keys` names them ("q", "C-c"). */
  async press(key: string): Promise<void> {
    await this.#tmux("send-keys", "-t", "test", key);
  }

  /** The process id of the pane's program (the child of the shell that runs it). */
  async programPid(): Promise<number> {
    const shell = (await this.#tmux("display-message", "-p", "-t", "test", "#{pane_pid}")).stdout.trim();
    const { stdout } = await run("ps", ["-o", "pid=", "--ppid", shell]);
    const pid = Number(stdout.trim().split(/\s+/)[0]);
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no program runs under the pane's shell ${shell}`);
    return pid;
  }

  /** Resolves once the pane's program has exited, with its status and how it left the terminal. */
  async exited(timeoutMs = 15_000): Promise<PaneExit> {
    const screen = await this.waitForScreen("the program in the pane to exit", (text) => text.includes(EXIT_MARK), timeoutMs);
    const status = Number(screen.slice(screen.indexOf(EXIT_MARK) + EXIT_MARK.length).split(/\s/, 1)[0]);
    const state = await this.#tmux("display-message", "-p", "-t", "test", "#{alternate_on} #{cursor_flag}");
    const [alternateOn, cursorFlag] = state.stdout.trim().split(" ");
    return { status, alternateScreenLeft: alternateOn === "0", cursorVisible: cursorFlag === "1" };
  }

  /** Stops the private tmux server and everything in it. */
  async close(): Promise<void> {
    await this.#tmux("kill-server").catch(() => undefined);
  }

  async #poll(timeoutMs: number, check: () => Promise<boolean>, describe: () => string): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!(await check())) {
      if (performance.now() > deadline) throw new Error(`still waiting after ${timeoutMs} ms for ${describe()}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  #tmux(...args: string[]) {
    return run(TMUX, ["-L", this.#socket, ...args]);
  }
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
