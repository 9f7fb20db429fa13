import { type Compilable, CompiledQuery, isOperationNodeSource, type QueryResult } from "kysely";
import { type AnyDb, dialectOf } from "./sql-dialect.js";

/** Stands for the value at `index` of a statement's values while its shape is compiled. */
class Slot {
  constructor(readonly index: number) {}
}

interface Shape {
  readonly sql: string;
  /** For each parameter of `sql`, the index of its value. */
  readonly order: readonly number[];
}

const shapes = new Map<string, Shape>();
const MAX_SHAPES = 1_000;

/**
 * Runs the statement `build` makes, compiling it once per shape (dialect and `shapeKey`): later calls only put `values`
 * in their places. `build` receives a placeholder per value, or the values themselves where compiling again is needed:
 * on a kysely instance with plugins, which may rewrite every query, and for a value that is an expression (`sql\`…\``).
 */
export function executeShaped(
  db: AnyDb,
  shapeKey: string,
  values: readonly unknown[],
  build: (values: readonly unknown[]) => Compilable,
): Promise<QueryResult<unknown>> {
  if (db.getExecutor().plugins.length > 0 || values.some(isOperationNodeSource)) return db.executeQuery(build(values));
  const key = `${dialectOf(db)}\u0000${shapeKey}`;
  const shape = shapes.get(key) ?? compileShape(key, values.length, build);
  return db.executeQuery(
    CompiledQuery.raw(
      shape.sql,
      shape.order.map((index) => values[index]),
    ),
  );
}

function compileShape(key: string, count: number, build: (values: readonly unknown[]) => Compilable): Shape {
  const compiled = build(Array.from({ length: count }, (_, index) => new Slot(index))).compile();
  const order = compiled.parameters.map((parameter) => {
    if (!(parameter instanceof Slot)) throw new TypeError(`a shaped statement has a parameter that is not one of its values: ${compiled.sql}`);
    return parameter.index;
  });
  const shape = { sql: compiled.sql, order };
  if (shapes.size < MAX_SHAPES) shapes.set(key, shape);
  return shape;
}
