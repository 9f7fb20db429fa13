/** What a row's workers contend for: one lock key, one counting semaphore, or sets of a few shared lock keys. */
export const PRIMITIVES = ["lock", "semaphore", "multi-key"] as const;

export type Primitive = (typeof PRIMITIVES)[number];
