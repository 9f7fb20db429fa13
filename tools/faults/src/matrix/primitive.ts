/** What a row's workers contend for: one lock key, or one counting semaphore. */
export const PRIMITIVES = ["lock", "semaphore"] as const;

export type Primitive = (typeof PRIMITIVES)[number];
