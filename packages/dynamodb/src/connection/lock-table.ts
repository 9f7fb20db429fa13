import { type AttributeValue, type DynamoDBClient, GetItemCommand, PutItemCommand, ScanCommand, UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import type { ResolvedDynamoDbLockOptions } from "../options/dynamodb-lock-provider-options.js";
import { KEY_ATTRIBUTE, LOCK_ATTRIBUTE_NAMES, type LockItem, lockItemFrom } from "../table/lock-item.js";
import type { LockWrite } from "../table/lock-writes.js";
import type { PlainPut, PlainUpdate } from "../table/plain-writes.js";
import { CallDeadlines, type CallSignal } from "./call-deadlines.js";
import { createDynamoDbClient } from "./create-dynamodb-client.js";
import { missingTableError } from "./missing-table-error.js";
import { retryThrottled } from "./retry-throttled.js";

/** Every attribute but the owner secret: what `list` reads. */
const PUBLIC_ATTRIBUTES = "#key, #holder, #count, #lease, #version, #token, #line";

/** The lock table through one client: consistent reads, conditional writes, each call bounded by `commandTimeoutMs`. */
export class LockTable {
  readonly #options: ResolvedDynamoDbLockOptions;
  readonly #client: DynamoDBClient;
  readonly #ownsClient: boolean;
  readonly #deadlines: CallDeadlines;
  #closed = false;

  /** Opens nothing: the SDK connects on the first call. */
  constructor(options: ResolvedDynamoDbLockOptions) {
    this.#options = options;
    this.#ownsClient = options.client === undefined;
    this.#client = options.client ?? createDynamoDbClient(options);
    this.#deadlines = new CallDeadlines(options.commandTimeoutMs);
  }

  /** The item as it is now (a strongly consistent read), or undefined when the key was never used. */
  async read(key: string): Promise<LockItem | undefined> {
    const command = new GetItemCommand({ TableName: this.#options.table, Key: { [KEY_ATTRIBUTE]: { S: key } }, ConsistentRead: true });
    const { Item: item } = await this.#bounded((abortSignal) => this.#client.send(command, { abortSignal }));
    return item === undefined ? undefined : lockItemFrom(item);
  }

  /** Applies `write` if its condition holds: the item after it, or undefined (nothing changed) when it did not hold. */
  async write(key: string, write: LockWrite): Promise<LockItem | undefined> {
    const attributes = await this.#update(key, write, "ALL_NEW");
    return attributes === undefined ? undefined : lockItemFrom(attributes);
  }

  /** Applies `write` if its condition holds, reading nothing back: whether it did. */
  async writeOnly(key: string, write: LockWrite): Promise<boolean> {
    return (await this.#update(key, write, "NONE")) !== undefined;
  }

  /** Writes the whole item `put` describes if its expected attributes hold, reading nothing back: whether it did. */
  async put(key: string, put: PlainPut): Promise<boolean> {
    const command = new PutItemCommand({ TableName: this.#options.table, Item: { ...put.item, [KEY_ATTRIBUTE]: { S: key } }, Expected: put.expected });
    return this.#appliedIf((abortSignal) => this.#client.send(command, { abortSignal }));
  }

  /** Applies `update` if its expected attributes hold, reading nothing back: whether it did. */
  async updateOnly(key: string, update: PlainUpdate): Promise<boolean> {
    const command = new UpdateItemCommand({
      TableName: this.#options.table,
      Key: { [KEY_ATTRIBUTE]: { S: key } },
      AttributeUpdates: update.updates,
      Expected: update.expected,
    });
    return this.#appliedIf((abortSignal) => this.#client.send(command, { abortSignal }));
  }

  async #update(key: string, write: LockWrite, returnValues: "ALL_NEW" | "NONE"): Promise<Record<string, AttributeValue> | undefined> {
    const command = new UpdateItemCommand({
      TableName: this.#options.table,
      Key: { [KEY_ATTRIBUTE]: { S: key } },
      UpdateExpression: write.update,
      ConditionExpression: write.condition,
      ExpressionAttributeNames: namesUsedIn(write.update, write.condition),
      ExpressionAttributeValues: write.values,
      ReturnValues: returnValues,
    });
    return this.#conditional(async () => (await this.#bounded((abortSignal) => this.#client.send(command, { abortSignal }))).Attributes ?? {});
  }

  /** Sends a conditional write that returns nothing: whether its condition held. */
  async #appliedIf(send: (abortSignal: CallSignal) => Promise<object>): Promise<boolean> {
    return (await this.#conditional(() => this.#bounded(send))) !== undefined;
  }

  /** The answer of a conditional write, or undefined when its condition did not hold. */
  async #conditional<T>(write: () => Promise<T>): Promise<T | undefined> {
    try {
      return await write();
    } catch (error) {
      if ((error as { name?: unknown }).name === "ConditionalCheckFailedException") return undefined;
      throw error;
    }
  }

  /** Every held item whose key starts with `prefix`: a Scan of the whole table (DynamoDB has no prefix query on a partition key). */
  async scanHeld(prefix: string): Promise<LockItem[]> {
    const items: LockItem[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const command = new ScanCommand({
        TableName: this.#options.table,
        ConsistentRead: true,
        FilterExpression: "begins_with(#key, :prefix) AND attribute_exists(#owner)",
        ProjectionExpression: PUBLIC_ATTRIBUTES,
        ExpressionAttributeNames: namesUsedIn(PUBLIC_ATTRIBUTES, "#key #owner"),
        ExpressionAttributeValues: { ":prefix": { S: prefix } },
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      });
      const output = await this.#bounded((abortSignal) => this.#client.send(command, { abortSignal }));
      for (const item of output.Items ?? []) items.push(lockItemFrom(item));
      start = output.LastEvaluatedKey;
    } while (start !== undefined);
    return items;
  }

  /** Destroys the client it created (never one the caller passed in); idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#deadlines.close();
    if (this.#ownsClient) this.#client.destroy();
  }

  /** Runs one SDK call (again after throttling), failed after `commandTimeoutMs`; a missing table becomes INVALID_CONFIG naming it. */
  async #bounded<T>(call: (abortSignal: CallSignal) => Promise<T>): Promise<T> {
    try {
      return await this.#deadlines.run((abortSignal, dueAt) => retryThrottled(() => call(abortSignal), dueAt));
    } catch (error) {
      if ((error as { name?: unknown }).name === "ResourceNotFoundException") throw missingTableError(this.#options.table, this.#options.region, error);
      throw error;
    }
  }
}

const namesByExpression = new Map<string, Map<string, Readonly<Record<string, string>>>>();

/**
 * The placeholders two expressions use (DynamoDB refuses a name it was given and does not use), worked out once per
 * pair and shared, frozen, by every call with it (the SDK only reads its input).
 */
function namesUsedIn(first: string, second: string): Record<string, string> {
  let bySecond = namesByExpression.get(first);
  if (bySecond === undefined) {
    bySecond = new Map();
    namesByExpression.set(first, bySecond);
  }
  let names = bySecond.get(second);
  if (names === undefined) {
    const text = `${first} ${second}`;
    names = Object.freeze(Object.fromEntries(Object.entries(LOCK_ATTRIBUTE_NAMES).filter(([placeholder]) => new RegExp(`${placeholder}\\b`).test(text))));
    bySecond.set(second, names);
  }
  return names as Record<string, string>;
}
