import type { Attributes } from "@opentelemetry/api";
import { LOCK_ATTRIBUTES } from "./names.js";

/** Whether and how the lock key becomes the `distlock.key` attribute. Keys are often unbounded: mind the cardinality. */
export interface KeyAttributeOptions {
  /** Put the key itself on every metric point and span. @default false */
  keyAttribute?: boolean;
  /** Map a key to a bounded label (e.g. `"orders:123"` → `"orders"`), or undefined for none; wins over `keyAttribute`. Must be deterministic. */
  keyLabel?: (key: string) => string | undefined;
}

/** The `distlock.key` value the options ask for, or undefined for none. */
export function keyLabelOf(key: string, options: KeyAttributeOptions): string | undefined {
  return options.keyLabel !== undefined ? options.keyLabel(key) : options.keyAttribute === true ? key : undefined;
}

/** `attributes` with `distlock.key` added when the options ask for it. */
export function withKeyAttribute(attributes: Attributes, key: string, options: KeyAttributeOptions): Attributes {
  const label = keyLabelOf(key, options);
  return label === undefined ? attributes : { ...attributes, [LOCK_ATTRIBUTES.key]: label };
}

/** The `error.type` of a failure: a LockError's code, else the error's name. */
export function errorType(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if (typeof code === "string") return code;
    if (typeof name === "string") return name;
  }
  return "unknown";
}
