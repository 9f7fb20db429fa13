import type { AcquireEventBase } from "@distlock/core";
import type { Attributes } from "@opentelemetry/api";
import { type KeyAttributeOptions, keyLabelOf } from "./key-attribute.js";
import { type AcquireOutcome, type HoldOutcome, LOCK_ATTRIBUTES } from "./names.js";

type Operation = AcquireEventBase["operation"];
type CallOutcome = Exclude<AcquireOutcome, "error">;

/**
 * The frozen attribute objects of one backend and key label, built once and shared by every event that names them:
 * recording an event builds none, and tallies key on them by identity.
 */
export class LabelAttributes {
  /** `distlock.backend` (and `distlock.key` when asked for). */
  readonly base: Attributes;
  /** …and `distlock.operation`. */
  readonly calls: Readonly<Record<Operation, Attributes>>;
  /** …and `distlock.outcome` of a call that did not fail. */
  readonly outcomes: Readonly<Record<Operation, Readonly<Record<CallOutcome, Attributes>>>>;
  /** `base` and `distlock.outcome` of a hold. */
  readonly holdEnds: Readonly<Record<HoldOutcome, Attributes>>;
  readonly #backend: string;
  readonly #label: string | undefined;
  readonly #withErrors = new Map<string, Attributes>();

  constructor(backend: string, label: string | undefined) {
    this.base = attributes(backend, label);
    this.calls = {
      acquire: attributes(backend, label, [LOCK_ATTRIBUTES.operation, "acquire"]),
      tryAcquire: attributes(backend, label, [LOCK_ATTRIBUTES.operation, "tryAcquire"]),
    };
    const outcomesOf = (operation: Operation) => {
      const of = (outcome: CallOutcome) => attributes(backend, label, [LOCK_ATTRIBUTES.operation, operation], [LOCK_ATTRIBUTES.outcome, outcome]);
      return { granted: of("granted"), timeout: of("timeout"), aborted: of("aborted") };
    };
    this.outcomes = { acquire: outcomesOf("acquire"), tryAcquire: outcomesOf("tryAcquire") };
    this.holdEnds = {
      released: attributes(backend, label, [LOCK_ATTRIBUTES.outcome, "released"]),
      lost: attributes(backend, label, [LOCK_ATTRIBUTES.outcome, "lost"]),
    };
    this.#backend = backend;
    this.#label = label;
  }

  /** A failed call: `calls[operation]` with outcome `error` and its `error.type`. */
  failure(operation: Operation, errorType: string): Attributes {
    return this.#withError(`${operation}\u0000${errorType}`, errorType, [LOCK_ATTRIBUTES.operation, operation], [LOCK_ATTRIBUTES.outcome, "error"]);
  }

  /** A failed renewal: `base` with its `error.type`. */
  renewFailure(errorType: string): Attributes {
    return this.#withError(`\u0000${errorType}`, errorType);
  }

  #withError(id: string, errorType: string, ...extra: Array<readonly [string, string]>): Attributes {
    let set = this.#withErrors.get(id);
    if (set === undefined) {
      set = attributes(this.#backend, this.#label, ...extra, [LOCK_ATTRIBUTES.errorType, errorType]);
      this.#withErrors.set(id, set);
    }
    return set;
  }
}

/** The `LabelAttributes` of every backend and key label seen, made on first use. */
export class AttributeSets {
  readonly #byBackend = new Map<string, Map<string | undefined, LabelAttributes>>();
  readonly #options: KeyAttributeOptions;

  constructor(options: KeyAttributeOptions) {
    this.#options = options;
  }

  of(event: { backend: string; key: string }): LabelAttributes {
    const label = keyLabelOf(event.key, this.#options);
    let labels = this.#byBackend.get(event.backend);
    if (labels === undefined) {
      labels = new Map();
      this.#byBackend.set(event.backend, labels);
    }
    let sets = labels.get(label);
    if (sets === undefined) {
      sets = new LabelAttributes(event.backend, label);
      labels.set(label, sets);
    }
    return sets;
  }
}

function attributes(backend: string, label: string | undefined, ...extra: Array<readonly [string, string]>): Attributes {
  const set: Attributes = { [LOCK_ATTRIBUTES.backend]: backend };
  if (label !== undefined) set[LOCK_ATTRIBUTES.key] = label;
  for (const [name, value] of extra) set[name] = value;
  return Object.freeze(set);
}
