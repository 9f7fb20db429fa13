import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { LastConnectionError } from "./last-connection-error.js";

describe("LastConnectionError", () => {
  it("adds the last error of any tracked connection to a failure, without credentials, until one is ready again", () => {
    const errors = new LastConnectionError();
    const first = errors.track(new EventEmitter());
    const second = errors.track(new EventEmitter());
    expect(errors.explain(new Error("no answer within 50 ms"))).toBe("no answer within 50 ms");
    first.emit("error", new Error("connect ECONNREFUSED redis://app:s3cret@10.0.0.1:6379"));
    const explained = errors.explain(new Error("no answer within 50 ms"));
    expect(explained).toMatch(/^no answer within 50 ms \(last connection error: connect ECONNREFUSED .*10\.0\.0\.1:6379\)$/);
    expect(explained).not.toContain("s3cret");
    expect(errors.explain("connect ECONNREFUSED redis://app:s3cret@10.0.0.1:6379")).not.toContain("last connection error");
    second.emit("ready");
    expect(errors.explain(new Error("no answer within 50 ms"))).toBe("no answer within 50 ms");
  });
});
