export { createLockProviderFromConfig } from "./create-lock-provider-from-config.js";
export { DynamoDbLockProvider } from "./dynamodb-lock-provider.js";
export { lockBackend } from "./lock-backend.js";
export { DEFAULT_DYNAMODB_LOCK_OPTIONS, type DynamoDbLockProviderOptions } from "./options/dynamodb-lock-provider-options.js";
export { checkDynamoDbDeployment as checkDeployment } from "./table/check-dynamodb-deployment.js";
export { createDynamoDbLockTable } from "./table/create-dynamodb-lock-table.js";
