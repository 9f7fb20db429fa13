/** One running server process on 127.0.0.1, started by this package. */
export interface ServerProcess {
  /** Human-readable name used in errors, e.g. `redis:17001` or `etcd:m1:17002`. */
  readonly name: string;
  /** Always the IPv4 loopback address. */
  readonly host: "127.0.0.1";
  /** The port clients connect to. */
  readonly port: number;
  /** The temp directory holding the server's data and log; removed by `close()`. */
  readonly dataDir: string;
  /** File receiving the server's stdout and stderr (inside `dataDir`). */
  readonly logFile: string;
  /** OS pid of the server while it runs. */
  readonly pid: number | undefined;
  /** True from a successful spawn until the process exits. */
  readonly running: boolean;
  /** True between `pause()` and `resume()`. */
  readonly paused: boolean;
  /** SIGKILLs the server (and its child processes) and waits until they are gone: a crash. */
  kill(): Promise<void>;
  /** Asks the server to shut down gracefully and waits for it to exit (SIGKILL after a timeout). */
  stop(): Promise<void>;
  /** (Re)starts the server on the same port and data dir and waits until it answers requests. */
  start(): Promise<void>;
  /** SIGSTOPs the server: connections stay open but nothing is answered. */
  pause(): void;
  /** SIGCONTs a paused server. */
  resume(): void;
  /** The last lines of the server's log. */
  logTail(): string;
  /** Stops the server and removes its data dir; the server cannot be started again. */
  close(): Promise<void>;
  /** Same as `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}
