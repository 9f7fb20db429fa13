import { InvalidArgumentError } from "@distlock/core";
import { CompareResult, CompareTarget, type ICompare, type IRequestOp } from "etcd3";

/** What one etcd transaction writes, and the versions it expects. */
export interface EtcdWrites {
  /** Keys to put, with their values. */
  puts?: Readonly<Record<string, string | Buffer>>;
  /** Keys to delete. */
  deletes?: readonly string[];
  /** The mod revision each key must still have (as read from etcd; 0: the key must not exist). */
  ifModRevision?: Readonly<Record<string, bigint | number | string>>;
}

/** Checked writes as etcd requests. */
export interface TxnPlan {
  /** How the written keys are named in errors: `etcd keys "a", "b"`. */
  readonly resource: string;
  readonly writes: IRequestOp[];
  readonly modChecks: ICompare[];
}

/** Checks `writes`, naming the field, and turns them into etcd requests. */
export function planTxn(writes: EtcdWrites, field: string): TxnPlan {
  if (typeof writes !== "object" || writes === null) throw new InvalidArgumentError(field, "must be { puts?, deletes?, ifModRevision? }");
  const puts = Object.entries(checkRecord(writes.puts, `${field}.puts`));
  const deletes = writes.deletes ?? [];
  if (!Array.isArray(deletes)) throw new InvalidArgumentError(`${field}.deletes`, "must be an array of keys");
  if (puts.length + deletes.length === 0) throw new InvalidArgumentError(field, "must put or delete at least one key");
  for (const [key, value] of puts) {
    checkKey(key, `${field}.puts`);
    if (typeof value !== "string" && !Buffer.isBuffer(value)) throw new InvalidArgumentError(`${field}.puts.${key}`, "must be a string or a Buffer");
  }
  deletes.forEach((key: unknown, i) => {
    checkKey(key, `${field}.deletes[${i}]`);
    if (Object.hasOwn(writes.puts ?? {}, key as string))
      throw new InvalidArgumentError(`${field}.deletes[${i}]`, "is also put: etcd takes each key once per transaction");
  });
  const modChecks = Object.entries(checkRecord(writes.ifModRevision, `${field}.ifModRevision`)).map(([key, revision]): ICompare => {
    checkKey(key, `${field}.ifModRevision`);
    return {
      key: Buffer.from(key),
      target: CompareTarget.Mod,
      result: CompareResult.Equal,
      mod_revision: checkRevision(revision, `${field}.ifModRevision.${key}`),
    };
  });
  const written = [...puts.map(([key]) => key), ...deletes];
  return {
    resource: `etcd keys ${written.map((key) => JSON.stringify(key)).join(", ")}`,
    writes: [
      ...puts.map(([key, value]): IRequestOp => ({ request_put: { key: Buffer.from(key), value: Buffer.from(value) } })),
      ...deletes.map((key: string): IRequestOp => ({ request_delete_range: { key: Buffer.from(key) } })),
    ],
    modChecks,
  };
}

export function checkKey(key: unknown, field: string): void {
  if (typeof key !== "string" || key === "") throw new InvalidArgumentError(field, "must hold non-empty string keys");
}

function checkRecord<T>(record: Readonly<Record<string, T>> | undefined, field: string): Readonly<Record<string, T>> {
  if (record === undefined) return {};
  if (typeof record !== "object" || record === null || Array.isArray(record) || Buffer.isBuffer(record))
    throw new InvalidArgumentError(field, "must be an object keyed by etcd key");
  return record;
}

function checkRevision(revision: unknown, field: string): string {
  const text = typeof revision === "bigint" || (typeof revision === "number" && Number.isSafeInteger(revision)) ? String(revision) : revision;
  if (typeof text !== "string" || !/^(0|[1-9]\d*)$/.test(text)) throw new InvalidArgumentError(field, "must be a revision: a whole number ≥ 0");
  return text;
}
