import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type PendingCall, PendingCalls } from "./pending-calls.js";

function callDueIn(ms: number, ended: string[], name: string): PendingCall {
  return { due: performance.now() + ms, answered: false, timedOut: () => ended.push(`${name} timed out`), lost: () => ended.push(`${name} lost`) };
}

describe("PendingCalls", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("times out each unanswered call at its own due time, oldest first, with one timer", () => {
    const calls = new PendingCalls();
    const ended: string[] = [];
    calls.add(callDueIn(100, ended, "a"));
    vi.advanceTimersByTime(40);
    calls.add(callDueIn(100, ended, "b"));
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(60);
    expect(ended).toEqual(["a timed out"]);
    vi.advanceTimersByTime(39);
    expect(ended).toEqual(["a timed out"]);
    vi.advanceTimersByTime(1);
    expect(ended).toEqual(["a timed out", "b timed out"]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("times out a call left unanswered behind answered ones (answers out of order)", () => {
    const calls = new PendingCalls();
    const ended: string[] = [];
    const first = callDueIn(100, ended, "first");
    calls.add(first);
    calls.add(callDueIn(100, ended, "second"));
    const third = callDueIn(100, ended, "third");
    calls.add(third);
    calls.delete(third);
    calls.delete(first);
    vi.advanceTimersByTime(100);
    expect(ended).toEqual(["second timed out"]);
  });

  it("never times out an answered call, and waits for the next one still pending", () => {
    const calls = new PendingCalls();
    const ended: string[] = [];
    const answered = callDueIn(100, ended, "answered");
    calls.add(answered);
    vi.advanceTimersByTime(50);
    calls.add(callDueIn(100, ended, "slow"));
    calls.delete(answered);
    vi.advanceTimersByTime(100);
    expect(ended).toEqual(["slow timed out"]);
  });

  it("ends every call still pending when the session is lost, and no timer is left", () => {
    const calls = new PendingCalls();
    const ended: string[] = [];
    const answered = callDueIn(100, ended, "answered");
    calls.add(callDueIn(100, ended, "a"));
    calls.add(answered);
    calls.add(callDueIn(100, ended, "b"));
    calls.delete(answered);
    calls.loseAll(new Error("session lost"));
    expect(ended).toEqual(["a lost", "b lost"]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
