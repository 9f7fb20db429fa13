import type { Attributes, ObservableResult } from "@opentelemetry/api";

/**
 * Counts kept in plain numbers, per attribute set (by identity: the sets come from `AttributeSets`), and handed to an
 * asynchronous instrument when the SDK collects: an event costs a map update, not an SDK record.
 */
export class Tally {
  readonly #values = new Map<Attributes, number>();

  add(attributes: Attributes, delta: number): void {
    this.#values.set(attributes, (this.#values.get(attributes) ?? 0) + delta);
  }

  readonly observe = (result: ObservableResult): void => {
    for (const [attributes, value] of this.#values) result.observe(value, attributes);
  };
}
