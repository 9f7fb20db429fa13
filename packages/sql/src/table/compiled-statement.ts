import { CompiledQuery, type QueryResult, type RawBuilder } from "kysely";
import type { AnyKysely } from "./any-kysely.js";
import { directQueryOf } from "./direct-statements.js";

/**
 * A statement whose text kysely compiles once, on first use, and that is then sent with each call's parameters:
 * compiling the same raw SQL again costs kysely more client CPU per call than the rest of its path to the driver.
 * `build` must bind every value it is given once, as a parameter, in the order given (no `sql.raw`, no identifiers
 * from values); the first call checks that it does. The first compile goes through the instance's plugins, as every call
 * would; its text is then the same for every later call, since only the parameters differ.
 */
export class CompiledStatement<Row, Values extends readonly unknown[]> {
  readonly #build: (...values: Values) => RawBuilder<Row>;
  #text: string | undefined;

  constructor(build: (...values: Values) => RawBuilder<Row>) {
    this.#build = build;
  }

  /** Runs the statement on `db`, straight on its pool where the package made `db` (`runStatementsDirectly`). */
  execute(db: AnyKysely, ...values: Values): Promise<QueryResult<Row>> {
    try {
      this.#text ??= this.#compile(db, values.length);
    } catch (error) {
      return Promise.reject(error);
    }
    const direct = directQueryOf(db);
    if (direct !== undefined) return direct(this.#text, values) as Promise<QueryResult<Row>>;
    return db.executeQuery(CompiledQuery.raw(this.#text, values as unknown as unknown[]));
  }

  /** The text, compiled with a distinct stand-in for each value, so a build that binds them out of order is caught. */
  #compile(db: AnyKysely, count: number): string {
    const standIns = Array.from({ length: count }, (_, position) => ({ position }));
    const compiled = this.#build(...(standIns as unknown as Values)).compile(db);
    const inOrder = compiled.parameters.length === count && compiled.parameters.every((parameter, i) => parameter === standIns[i]);
    if (!inOrder) throw new Error(`a compiled statement must bind each of its values once, in order: ${compiled.sql}`);
    return compiled.sql;
  }
}
