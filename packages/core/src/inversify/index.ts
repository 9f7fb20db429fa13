export { LOCK_PROVIDER, lockProviderModule } from "./lock-provider-module.js";
