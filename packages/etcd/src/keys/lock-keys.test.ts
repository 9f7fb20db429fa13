import { describe, expect, it } from "vitest";
import { decodeMemberValue, encodeMemberValue, lockPrefix, memberKey, ownerDigest, prefixRangeEnd } from "./lock-keys.js";

describe("key layout (Go concurrency.Mutex compatible)", () => {
  it('member keys are <prefix>/<key>/<lease id in lowercase hex>, like fmt.Sprintf("%s%x")', () => {
    expect(memberKey(lockPrefix("distlock", "orders:42"), "7587869580934372097").toString()).toBe("distlock/orders:42/694d872e7d95db01");
  });

  it("further owners of one provider on the same lease get <leaseHex>-<suffix>, still under the lock prefix", () => {
    expect(memberKey(lockPrefix("distlock", "k"), "255", 2).toString()).toBe("distlock/k/ff-2");
  });

  it("the range end of a prefix covers exactly the keys that start with it", () => {
    expect(prefixRangeEnd(Buffer.from("distlock/k/")).toString()).toBe("distlock/k0");
    expect([...prefixRangeEnd(Buffer.from([0x61, 0xff]))]).toEqual([0x62]);
    expect([...prefixRangeEnd(Buffer.from([0xff, 0xff]))]).toEqual([0]);
  });

  it("values carry a digest of the owner secret, never the secret itself", () => {
    const secret = "a-very-secret-owner";
    const encoded = encodeMemberValue({ owner: ownerDigest(secret), holder: "host:1:label", count: 2 });
    expect(encoded.toString()).not.toContain(secret);
    expect(decodeMemberValue(encoded)).toEqual({ owner: ownerDigest(secret), holder: "host:1:label", count: 2 });
  });

  it("values are the JSON of their fields in order, with labels escaped, and read back as written", () => {
    const values = [
      { owner: ownerDigest("s"), holder: 'host:1:"quoted" \\ label ünïcode \n', count: 3 },
      { owner: ownerDigest("s"), holder: "h", count: 1, permits: 4 },
    ];
    for (const value of values) {
      expect(encodeMemberValue(value).toString()).toBe(JSON.stringify(value));
      expect(decodeMemberValue(encodeMemberValue(value))).toEqual(value);
    }
  });

  it("keys written by etcdctl or Go (empty value) or anything malformed decode as foreign", () => {
    expect(decodeMemberValue(Buffer.alloc(0))).toBeUndefined();
    expect(decodeMemberValue(Buffer.from("not json"))).toBeUndefined();
    expect(decodeMemberValue(Buffer.from(JSON.stringify({ owner: "x", holder: "h", count: 0 })))).toBeUndefined();
  });
});
