import { isZkError, ZK_ERROR } from "./server-answers.js";
import type { Callback } from "./session-call.js";
import type { WireClient } from "./wire-client.js";

/** `Watcher.Event.EventType` values a persistent recursive watch sends for a lock path's children. */
const NODE_CREATED = 1;
const NODE_DELETED = 2;
/** A lock path taken again within this long after a take of ours gets a view. */
const RETAKE_WINDOW_MS = 1_000;
/** A lock path where a take of ours had to wait gets no view for this long: every view of a busy line hears all of it. */
const CONTENDED_PAUSE_MS = 60_000;
/** At most this many views per session (each is a watch the server keeps); beyond, takes read the line as before. */
const MAX_VIEWS = 256;
/** How many lock paths' last takes are remembered, to tell a path taken again from one taken once. */
const MAX_REMEMBERED = 4_096;

/** A lock path's children as this connection's watch has them: valid from its first read on, while the connection lasts. */
class LineView {
  readonly children = new Set<string>();
  seeded = false;
}

/**
 * Lines of lock paths this session takes over and over, kept up to date by a persistent recursive watch on each
 * (ZooKeeper 3.6 and later), so that a take needs no line read: ZooKeeper sends a connection every event of a change
 * before any reply that shows the change, so once the reply to our create is read, the view holds every node created
 * before ours (and perhaps later changes too, which a line read right after the create could also have shown).
 *
 * A view starts on a path's second take within {@link RETAKE_WINDOW_MS}, with the watch and a read of the children sent
 * ahead of that take's create; it ends when the session's connection changes (the client does not set our watch again),
 * when a take on it has to wait ({@link CONTENDED_PAUSE_MS}), or when the lock path is deleted as idle. A take uses the
 * view only if it holds the take's own node (`joinedPosition`), whose creation only a live watch can have reported.
 */
export class LineViews {
  readonly #wire: WireClient;
  /** The views of connection `#connection`; a later connection starts with none (`#current`). */
  readonly #views = new Map<string, LineView>();
  #connection: number;
  /** Lock path → when a take of ours last went without a view, or (in the future) until when it gets none. */
  readonly #taken = new Map<string, number>();
  /** The server refused `addWatch` (older than 3.6): takes read the line. */
  #unsupported = false;

  constructor(wire: WireClient) {
    this.#wire = wire;
    this.#connection = wire.connection;
    wire.listen((type, path) => this.#heard(type, path));
  }

  /** The line of `lockPath` as the watch has it, or undefined without a seeded view on the current connection. */
  line(lockPath: string): string[] | undefined {
    const view = this.#current().get(lockPath);
    return view?.seeded === true ? [...view.children] : undefined;
  }

  /**
   * Called before a take of `lockPath` sends its create, inside the same batch: sets up a view when the path was taken
   * moments ago and has none. True when the take can rely on `line` once its create is answered.
   */
  beforeTake(lockPath: string): boolean {
    if (this.#current().has(lockPath)) return true;
    if (this.#unsupported) return false;
    const now = performance.now();
    const last = this.#taken.get(lockPath);
    this.#remember(lockPath, last !== undefined && last > now ? last : now);
    if (last === undefined || last > now || now - last > RETAKE_WINDOW_MS || this.#views.size >= MAX_VIEWS) return false;
    this.#watch(lockPath);
    return true;
  }

  /** A take of ours had to wait on `lockPath`: no view there for a while. */
  contended(lockPath: string): void {
    this.forget(lockPath);
    this.#remember(lockPath, performance.now() + CONTENDED_PAUSE_MS);
  }

  /** Ends the view of `lockPath`, if any, and takes its watch off the server. */
  forget(lockPath: string): void {
    if (this.#current().delete(lockPath)) this.#wire.removeWatches(lockPath, ignore);
  }

  /** The views, emptied first when the connection changed since they were set: their watches went with it. */
  #current(): Map<string, LineView> {
    if (this.#connection !== this.#wire.connection) {
      this.#views.clear();
      this.#connection = this.#wire.connection;
    }
    return this.#views;
  }

  #watch(lockPath: string): void {
    const view = new LineView();
    this.#views.set(lockPath, view);
    const drop = (): void => {
      if (this.#views.get(lockPath) === view) this.#views.delete(lockPath);
    };
    this.#wire.addWatch(lockPath, (error) => {
      if (error === null) return;
      if (isZkError(error, ZK_ERROR.unimplemented)) this.#unsupported = true;
      drop();
    });
    // Sent in the same write as the watch, so answered on the same connection (a connection lost between fails both).
    this.#wire.getChildren(lockPath, (error, children) => {
      // No node: the line is empty, and the path's creation and its children's come as events.
      if (error !== null && !isZkError(error, ZK_ERROR.noNode)) return drop();
      for (const child of children ?? []) view.children.add(child);
      view.seeded = true;
    });
  }

  /** Events before a view's first read are in that read already; later ones change the line. */
  #heard(type: number, path: string): void {
    const slash = path.lastIndexOf("/");
    const view = this.#views.get(path.slice(0, slash));
    if (view?.seeded === true) {
      if (type === NODE_CREATED) view.children.add(path.slice(slash + 1));
      else if (type === NODE_DELETED) view.children.delete(path.slice(slash + 1));
    }
    if (type === NODE_DELETED) this.#views.get(path)?.children.clear();
  }

  #remember(lockPath: string, at: number): void {
    this.#taken.delete(lockPath);
    this.#taken.set(lockPath, at);
    if (this.#taken.size > MAX_REMEMBERED) this.#taken.delete(this.#taken.keys().next().value as string);
  }
}

const ignore: Callback<void> = () => undefined;
