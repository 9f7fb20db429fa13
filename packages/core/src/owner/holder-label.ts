import { hostname } from "node:os";

/** Public label of a holder: "host:pid" plus an optional label; never a secret. */
export function holderLabel(label?: string): string {
  const base = `${hostname()}:${process.pid}`;
  return label ? `${base}:${label}` : base;
}
