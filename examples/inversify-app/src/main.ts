import "reflect-metadata";
import { createAppContainer } from "./app-container.js";
import { InvoiceNumbers } from "./invoice-numbers.js";

const container = await createAppContainer();
const invoices = await container.getAsync(InvoiceNumbers);
const numbers = await Promise.all(Array.from({ length: 5 }, () => invoices.next()));
process.stdout.write(`${invoices.backend}: issued invoices ${numbers.sort((a, b) => a - b).join(", ")}\n`);
await container.unbindAllAsync();
