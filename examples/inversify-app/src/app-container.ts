import type { LockProviderConfig } from "@distlock/core";
import { lockProviderModule } from "@distlock/core/inversify";
import { Container } from "inversify";
import { InvoiceLedger, InvoiceNumbers } from "./invoice-numbers.js";

/** The app's container: the lock backend comes from config alone (`DISTLOCK_URL` when omitted). */
export async function createAppContainer(lockConfig?: string | LockProviderConfig): Promise<Container> {
  const container = new Container();
  await container.load(lockProviderModule(lockConfig));
  container.bind(InvoiceLedger).toSelf().inSingletonScope();
  container.bind(InvoiceNumbers).toSelf().inSingletonScope();
  return container;
}
