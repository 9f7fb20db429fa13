import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";

/** One client connection and its connection to the target. */
interface Link {
  readonly client: Socket;
  upstream: Socket | undefined;
  /** Serialises delayed writes per direction so bytes keep their order. */
  toUpstream: Promise<void>;
  toClient: Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Closes a socket abruptly (TCP RST where supported), as a network failure would. */
function reset(socket: Socket | undefined): void {
  if (socket === undefined || socket.destroyed) return;
  if (typeof socket.resetAndDestroy === "function" && !socket.connecting) socket.resetAndDestroy();
  else socket.destroy();
}

/**
 * A TCP proxy on 127.0.0.1 in front of one server, for network fault tests: point the client at
 * `proxy.port`, then cut, slow down or reset the network between them.
 */
export class TcpProxy implements AsyncDisposable {
  readonly host = "127.0.0.1" as const;
  readonly targetHost: string;
  readonly targetPort: number;
  readonly #server: Server;
  readonly #links = new Set<Link>();
  /** Every accepted client socket until it closes: a link can end upstream first while its client is still paused. */
  readonly #clients = new Set<Socket>();
  #blackholed = false;
  #delayMs = 0;

  constructor(targetPort: number, targetHost = "127.0.0.1") {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.#server = createServer((client) => this.#accept(client));
  }

  /** The port clients connect to (0 until `listen()` resolved). */
  get port(): number {
    const address = this.#server.address();
    return typeof address === "object" && address !== null ? address.port : 0;
  }

  /** Number of open client connections. */
  get connections(): number {
    return this.#links.size;
  }

  /** Starts listening on a free port. */
  async listen(): Promise<this> {
    this.#server.listen({ host: this.host, port: 0 });
    await once(this.#server, "listening");
    return this;
  }

  /**
   * Cuts the network without closing anything: bytes stop flowing both ways (they stay queued,
   * as TCP retransmits them) and new connections are accepted but never reach the target,
   * until `restore()`.
   */
  blackhole(): void {
    this.#blackholed = true;
    for (const link of this.#links) {
      link.client.pause();
      link.upstream?.pause();
    }
  }

  /** Delays every chunk by `ms` in both directions (0 turns the delay off). */
  delay(ms: number): void {
    this.#delayMs = Math.max(0, ms);
  }

  /** Ends a blackhole and any delay; queued bytes and held connections go through. */
  restore(): void {
    this.#blackholed = false;
    this.#delayMs = 0;
    for (const link of this.#links) {
      if (link.upstream === undefined) this.#connectUpstream(link);
      link.client.resume();
      link.upstream?.resume();
    }
  }

  /** Resets every open connection (both sides); the proxy keeps accepting new ones. */
  dropConnections(): void {
    for (const link of this.#links) {
      reset(link.client);
      reset(link.upstream);
    }
    this.#links.clear();
  }

  /** Drops every connection and stops listening. */
  async close(): Promise<void> {
    this.dropConnections();
    for (const client of this.#clients) reset(client);
    if (!this.#server.listening) return;
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #accept(client: Socket): void {
    const link: Link = { client, upstream: undefined, toUpstream: Promise.resolve(), toClient: Promise.resolve() };
    this.#links.add(link);
    this.#clients.add(client);
    client.once("close", () => this.#clients.delete(client));
    client.setNoDelay(true);
    client.on("data", (chunk: Buffer) => {
      link.toUpstream = this.#forward(link.toUpstream, chunk, () => link.upstream);
    });
    // A FIN or close is passed on after the bytes queued before it; errors reset both sides.
    const endUpstream = (): void => {
      link.toUpstream = link.toUpstream.then(() => {
        link.upstream?.end();
      });
    };
    client.on("end", endUpstream);
    client.on("close", () => {
      this.#links.delete(link);
      endUpstream();
    });
    client.on("error", () => this.#drop(link));
    if (this.#blackholed) client.pause();
    else this.#connectUpstream(link);
  }

  #connectUpstream(link: Link): void {
    const upstream = connect({ host: this.targetHost, port: this.targetPort });
    upstream.setNoDelay(true);
    link.upstream = upstream;
    upstream.on("data", (chunk: Buffer) => {
      link.toClient = this.#forward(link.toClient, chunk, () => link.client);
    });
    const endClient = (): void => {
      link.toClient = link.toClient.then(() => {
        link.client.end();
      });
    };
    upstream.on("end", endClient);
    upstream.on("close", () => {
      this.#links.delete(link);
      endClient();
    });
    // Target down: the client sees a reset, as it would connecting directly.
    upstream.on("error", () => this.#drop(link));
  }

  /** Writes `chunk` after the ones before it, `#delayMs` later. */
  #forward(previous: Promise<void>, chunk: Buffer, target: () => Socket | undefined): Promise<void> {
    const delayMs = this.#delayMs;
    const write = (): void => {
      const socket = target();
      if (socket !== undefined && !socket.destroyed) socket.write(chunk);
    };
    if (delayMs === 0) {
      // Keep order behind chunks still waiting out an earlier delay.
      return previous.then(write);
    }
    const due = performance.now() + delayMs;
    return previous.then(async () => {
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      write();
    });
  }

  #drop(link: Link): void {
    this.#links.delete(link);
    reset(link.client);
    reset(link.upstream);
  }
}

/** Starts a {@link TcpProxy} on a free 127.0.0.1 port forwarding to `targetHost:targetPort`. */
export function startTcpProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<TcpProxy> {
  return new TcpProxy(targetPort, targetHost).listen();
}
