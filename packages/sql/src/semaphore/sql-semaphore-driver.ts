import { LockError, LockErrorCode, PermitsMismatchError, type SemaphoreState } from "@distlock/core";
import type { DriverGranted, DriverPermitRequest, DriverRenewal, DriverWait, SemaphoreDriver } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { waiterTag } from "../postgres/postgres-lock-functions.js";
import type { PostgresReleaseListener } from "../postgres/postgres-release-listener.js";
import type { AnyKysely } from "../table/any-kysely.js";
import type { LockSqlFlavor } from "../table/lock-sql-flavor.js";
import { inWriteTransaction } from "../table/write-transaction.js";
import type { InFlight } from "../waiting/in-flight.js";
import { type LineOperations, waitInLine } from "../waiting/wait-in-line.js";
import type { SemaphoreStatements } from "./semaphore-statements.js";
import type { SemaphoreView } from "./semaphore-view.js";

/** What the semaphores use of their lock driver: its connection, its way of running statements and its notifications. */
export interface SqlSemaphoreAccess {
  readonly db: AnyKysely;
  readonly flavor: LockSqlFlavor;
  /** Runs statements as the lock driver's operations run: client loaded, tables migrated, failures as `BackendUnavailableError`. */
  run<T>(operation: string, statements: () => Promise<T>): Promise<T>;
  /** PostgreSQL with `listen`: the notifications that it is a waiter's turn. */
  readonly listener: PostgresReleaseListener | undefined;
  /** The driver's waits in progress, which closing lets finish their cleanup. */
  readonly waits: InFlight;
  /** PostgreSQL: tells a waiter (at commit) that it is its turn on a semaphore. */
  readonly announce: ((trx: AnyKysely, name: string, secret: string) => Promise<void>) | undefined;
}

/** What a change does when the semaphore has no row yet: create it with a permit count, or answer at once. */
type WhenMissing<T> = { readonly create: number } | { readonly answer: T };

/**
 * Counting semaphores on the lock table's database. Every change is one transaction that first locks the semaphore's
 * row, reads its grants and line with the database's clock (`SemaphoreView`), decides, and writes; so no two changes of
 * one semaphore interleave, on any dialect. Waiters keep a place in the server-side line while they wait, as lock
 * waiters do (`waitInLine`): each attempt keeps the place live for another claim window; PostgreSQL wakes a waiter when
 * it is its turn, the other dialects poll.
 */
export class SqlSemaphoreDriver implements SemaphoreDriver {
  readonly acquire: (request: DriverPermitRequest, wait: DriverWait) => Promise<DriverGranted>;
  readonly #statements: SemaphoreStatements;
  readonly #access: SqlSemaphoreAccess;

  constructor(statements: SemaphoreStatements, access: SqlSemaphoreAccess) {
    this.#statements = statements;
    this.#access = access;
    const { listener } = access;
    const line: LineOperations<DriverPermitRequest> = {
      watch: listener === undefined ? undefined : ({ key, ownerSecret }) => listener.watch(key, waiterTag(ownerSecret)),
      attempt: (request) => this.#attempt(request, true),
      ahead: ({ key, ownerSecret }) => access.run("acquire", async () => (await statements.read(access.db, key)).aheadOf(ownerSecret)),
      leave: ({ key, ownerSecret }) => this.#leave(key, ownerSecret),
      release: ({ key, ownerSecret }) => this.release(key, ownerSecret),
      cleanupTurn: (signal) => access.waits.cleanupTurn(signal),
    };
    this.acquire = (request, wait) => access.waits.track(waitInLine(line, request, wait.signal));
  }

  tryAcquire(request: DriverPermitRequest): Promise<DriverAcquireResult> {
    return this.#attempt(request, false);
  }

  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return Promise.all(
      renewals.map(({ key, ownerSecret, ttlMs }) =>
        this.#change(
          "renew",
          key,
          async (trx, view) => {
            if (!view.holds(ownerSecret)) return false;
            await this.#statements.extendGrant(trx, key, ownerSecret, ttlMs);
            return true;
          },
          { answer: false },
        ),
      ),
    );
  }

  release(name: string, ownerSecret: string): Promise<boolean> {
    return this.#change(
      "release",
      name,
      async (trx, view) => {
        const held = view.holds(ownerSecret);
        await this.#statements.deleteLapsed(trx, name, view);
        if (held) await this.#statements.deleteGrant(trx, name, ownerSecret);
        if (held || view.lapsed.length > 0) await this.#announce(trx, name, view, ownerSecret);
        return held;
      },
      { answer: false },
    );
  }

  inspect(name: string): Promise<SemaphoreState | null> {
    return this.#access.run("inspect", async () => (await this.#statements.read(this.#access.db, name)).state(name));
  }

  /** Deletes the grants and places that lapsed more than `idleMs` ago (their processes crashed), each semaphore in a change of its own. */
  async purgeLapsed(idleMs: number): Promise<void> {
    const names = await this.#access.run("purge", () => this.#statements.lapsedNames(this.#access.db, idleMs));
    for (const name of names) {
      await this.#change(
        "purge",
        name,
        async (trx, view) => {
          await this.#statements.deleteLapsed(trx, name, view);
          if (view.lapsed.length > 0) await this.#announce(trx, name, view);
        },
        { answer: undefined },
      );
    }
  }

  /** One attempt; `inLine` joins the line when refused (or keeps the place live), and leaves it when granted. */
  #attempt(request: DriverPermitRequest, inLine: boolean): Promise<DriverAcquireResult> {
    return this.#change("acquire", request.key, (trx, view) => this.#decide(trx, view, request, inLine), { create: request.permits }).catch(
      (error: unknown) => {
        // The transaction may still commit (a statement timed out, an answer was lost): a release sent now runs after
        // it and gives back what it granted, as nothing else uses this fresh owner secret.
        if (!LockError.is(error, LockErrorCode.PermitsMismatch)) void this.release(request.key, request.ownerSecret).catch(() => undefined);
        throw error;
      },
    );
  }

  async #decide(trx: AnyKysely, view: SemaphoreView, request: DriverPermitRequest, inLine: boolean): Promise<DriverAcquireResult> {
    const { key: name, ownerSecret, permits, count } = request;
    if (!view.idle && view.storedPermits !== permits) throw new PermitsMismatchError(name, permits, view.storedPermits ?? 0);
    await this.#statements.deleteLapsed(trx, name, view);
    const placed = view.placeOf(ownerSecret) !== -1;
    // An idle semaphore admits any valid count (1 to permits), so a refusal never has a new permit count to store.
    if (view.admits(ownerSecret, count, permits, inLine)) {
      await this.#statements.countGrant(trx, name, permits);
      await this.#statements.insertGrant(trx, request);
      if (placed) await this.#statements.deletePlace(trx, name, ownerSecret);
      return { acquired: true, fencingToken: view.lastToken + 1n, holdCount: 1, ttlMs: request.ttlMs };
    }
    if (inLine) await (placed ? this.#statements.keepPlace(trx, name, ownerSecret) : this.#statements.insertPlace(trx, request, view.nextTicket()));
    // Lapsed grants or places held back the line until now.
    if (view.lapsed.length > 0) await this.#announce(trx, name, view);
    return { acquired: false, retryAfterMs: view.retryAfterMs() };
  }

  /** Leaves the line (a waiter that was granted nothing, timed out or was aborted); also deletes lapsed rows. */
  #leave(name: string, secret: string): Promise<void> {
    return this.#change(
      "acquire",
      name,
      async (trx, view) => {
        const placed = view.placeOf(secret) !== -1;
        await this.#statements.deleteLapsed(trx, name, view);
        if (placed) await this.#statements.deletePlace(trx, name, secret);
        if (placed || view.lapsed.length > 0) await this.#announce(trx, name, view, secret);
      },
      { answer: undefined },
    );
  }

  /** PostgreSQL: wakes the waiters whose turn it is once the change has removed `gone`'s grant or place (see `turn`). */
  async #announce(trx: AnyKysely, name: string, view: SemaphoreView, gone?: string): Promise<void> {
    const { announce } = this.#access;
    if (announce === undefined) return;
    for (const place of view.turn(gone)) await announce(trx, name, place.secret);
  }

  /** Runs `work` on the semaphore's view in one transaction that holds its row lock; see `WhenMissing`. */
  #change<T>(operation: string, name: string, work: (trx: AnyKysely, view: SemaphoreView) => Promise<T>, missing: WhenMissing<T>): Promise<T> {
    return this.#access.run(operation, async () => {
      const first = await this.#locked(name, work);
      if (first !== undefined) return first.done;
      if ("answer" in missing) return missing.answer;
      await this.#statements.create(this.#access.db, name, missing.create);
      const second = await this.#locked(name, work);
      if (second === undefined) throw new Error(`the row of semaphore "${name}" was gone right after it was created`);
      return second.done;
    });
  }

  /** `work`'s result, or undefined when the semaphore has no row to lock. */
  #locked<T>(name: string, work: (trx: AnyKysely, view: SemaphoreView) => Promise<T>): Promise<{ done: T } | undefined> {
    return inWriteTransaction(this.#access.db, this.#access.flavor, async (trx) => {
      if (!(await this.#statements.lock(trx, name))) return undefined;
      return { done: await work(trx, await this.#statements.read(trx, name)) };
    });
  }
}
