import { z } from "zod";
import { MAX_DURATION_MS, MAX_OWNER_LENGTH } from "./defaults.js";

const duration = (minimum: "positive" | "non-negative") =>
  z
    .number({ error: "must be a number of milliseconds" })
    .refine(Number.isFinite, "must be a finite number")
    .refine((n) => (minimum === "positive" ? n > 0 : n >= 0), `must be ${minimum === "positive" ? "greater than 0" : "0 or more"}`)
    .refine((n) => n <= MAX_DURATION_MS, `must be at most ${MAX_DURATION_MS}`);

/** Schema of `AcquireOptions`; unknown fields are rejected. */
export const acquireOptionsSchema = z.strictObject({
  ttlMs: duration("positive").optional(),
  waitMs: duration("non-negative").optional(),
  signal: z.instanceof(AbortSignal, { error: "must be an AbortSignal" }).optional(),
  autoRenew: z.boolean({ error: "must be a boolean" }).optional(),
  owner: z.string({ error: "must be a string" }).min(1, "must not be empty").max(MAX_OWNER_LENGTH, `must be at most ${MAX_OWNER_LENGTH} characters`).optional(),
});
