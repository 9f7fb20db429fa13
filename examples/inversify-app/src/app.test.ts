import "reflect-metadata";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAppContainer } from "./app-container.js";
import { InvoiceNumbers } from "./invoice-numbers.js";

const backends = [
  ["memory", "memory:inversify-example"],
  ["sqlite", `sqlite:${join(mkdtempSync(join(tmpdir(), "distlock-di-")), "locks.sqlite")}`],
];

describe("the inversify example app", () => {
  it.each(backends)("gets a %s LockProvider injected and issues gap-free numbers under contention", async (backend, url) => {
    const container = await createAppContainer(url);
    const invoices = await container.getAsync(InvoiceNumbers);
    expect(invoices.backend).toBe(backend);
    const numbers = await Promise.all(Array.from({ length: 20 }, () => invoices.next()));
    expect(numbers.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    await container.unbindAllAsync();
  });
});
