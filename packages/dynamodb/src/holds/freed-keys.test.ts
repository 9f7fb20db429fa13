import { describe, expect, it } from "vitest";
import { FreedKeys } from "./freed-keys.js";

describe("FreedKeys", () => {
  it("knows a key the owner freed, with the token of its hold and the version its release wrote, once", () => {
    const keys = new FreedKeys();
    keys.granted("k", "owner-a", 7n);
    keys.freed("k", "owner-a", "v-released");
    expect(keys.take("k")).toEqual({ fencingToken: 7n, recordVersion: "v-released" });
    expect(keys.take("k")).toBeUndefined();
  });

  it("knows nothing of a key another owner was granted since, or that a release by someone else freed", () => {
    const keys = new FreedKeys();
    keys.granted("k", "owner-a", 7n);
    keys.granted("k", "owner-b", 8n);
    keys.freed("k", "owner-a", "v-released");
    expect(keys.take("k")).toBeUndefined();
  });

  it("forgets a freed key that is granted again or forgotten", () => {
    const keys = new FreedKeys();
    keys.granted("k", "owner-a", 7n);
    keys.freed("k", "owner-a", "v1");
    keys.granted("k", "owner-a", 8n);
    expect(keys.take("k")).toBeUndefined();
    keys.freed("k", "owner-a", "v2");
    keys.forget("k");
    expect(keys.take("k")).toBeUndefined();
  });
});
