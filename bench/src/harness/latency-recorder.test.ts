import { describe, expect, it } from "vitest";
import { LatencyRecorder } from "./latency-recorder.js";

describe("LatencyRecorder", () => {
  it("keeps every latency in order, past the room it was given", () => {
    const recorder = new LatencyRecorder(2);
    for (const ms of [0.5, 1.25, 3, 0.75, 2]) recorder.record(ms);
    expect(recorder.count).toBe(5);
    expect(recorder.toArray()).toEqual([0.5, 1.25, 3, 0.75, 2]);
  });

  it("answers an empty array when nothing was recorded", () => {
    expect(new LatencyRecorder(0).toArray()).toEqual([]);
  });
});
