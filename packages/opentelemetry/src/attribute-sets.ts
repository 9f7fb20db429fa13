import type { Attributes } from "@opentelemetry/api";
import { type KeyAttributeOptions, keyLabelOf } from "./key-attribute.js";
import { LOCK_ATTRIBUTES } from "./names.js";

/** One frozen attribute object per combination of values, so recording an event builds none and tallies can key on it. */
export class AttributeSets {
  readonly #sets = new Map<string, Attributes>();
  readonly #options: KeyAttributeOptions;

  constructor(options: KeyAttributeOptions) {
    this.#options = options;
  }

  /** `distlock.backend`, the key's label when the options ask for one, and `extra` (attribute name → value, in a fixed order). */
  of(event: { backend: string; key: string }, ...extra: Array<readonly [string, string]>): Attributes {
    const label = keyLabelOf(event.key, this.#options);
    let id = label === undefined ? event.backend : `${event.backend}\u0000${label}`;
    for (const [name, value] of extra) id += `\u0000${name}=${value}`;
    let set = this.#sets.get(id);
    if (set === undefined) {
      const attributes: Attributes = { [LOCK_ATTRIBUTES.backend]: event.backend };
      if (label !== undefined) attributes[LOCK_ATTRIBUTES.key] = label;
      for (const [name, value] of extra) attributes[name] = value;
      set = Object.freeze(attributes);
      this.#sets.set(id, set);
    }
    return set;
  }
}
