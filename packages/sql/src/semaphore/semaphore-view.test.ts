import { describe, expect, it } from "vitest";
import { type SemaphoreRow, SemaphoreView } from "./semaphore-view.js";

const NOW = 1_000_000;

/** The rows `read` returns for a semaphore of `permits` at NOW: grants as [secret, count, ms left], places as [secret, count, ticket, ms left]. */
function view(permits: number, grants: [string, number, number][], places: [string, number, number, number][] = []): SemaphoreView {
  const rows: SemaphoreRow[] = [
    { kind: 0, secret: null, holder: null, permit_count: permits, fencing_token: "7", ticket: 0, expires_at: String(NOW) },
    ...grants.map(([secret, count, left]) => ({
      kind: 1,
      secret,
      holder: `holder of ${secret}`,
      permit_count: count,
      fencing_token: "5",
      ticket: 0,
      expires_at: String(NOW + left),
    })),
    ...places.map(([secret, count, ticket, left]) => ({
      kind: 2,
      secret,
      holder: null,
      permit_count: count,
      fencing_token: null,
      ticket,
      expires_at: NOW + left,
    })),
  ];
  return new SemaphoreView(rows);
}

describe("SemaphoreView", () => {
  it("counts only grants and places whose time has not run out on the database's clock, and lists the lapsed ones", () => {
    const seen = view(
      4,
      [
        ["live", 2, 10],
        ["lapsed", 1, 0],
      ],
      [["gone", 1, 3, -5]],
    );
    expect(seen.inUse).toBe(2);
    expect(seen.holds("lapsed")).toBe(false);
    expect(seen.waiters).toEqual([]);
    expect(seen.lapsed.map((row) => row.secret)).toEqual(["lapsed", "gone"]);
    expect(seen.nextTicket()).toBe(4);
    expect(seen.lastToken).toBe(7n);
  });

  it("without a place (tryAcquire) admits only when nobody waits and the count fits", () => {
    expect(view(3, [["a", 2, 10]]).admits("new", 1, 3, false)).toBe(true);
    expect(view(3, [["a", 2, 10]]).admits("new", 2, 3, false)).toBe(false);
    expect(view(3, [], [["w", 3, 1, 100]]).admits("new", 1, 3, false)).toBe(false);
  });

  it("a place in line is admitted when its count fits after the grants and every place before it, never past a bigger one", () => {
    const line = view(
      3,
      [["a", 2, 10]],
      [
        ["big", 3, 1, 100],
        ["small", 1, 2, 100],
      ],
    );
    expect(line.admits("small", 1, 3, true)).toBe(false);
    expect(line.admits("big", 3, 3, true)).toBe(false);
    // A newcomer joining the line would be behind both.
    expect(line.admits("newcomer", 1, 3, true)).toBe(false);
    const fits = view(
      4,
      [["a", 1, 10]],
      [
        ["first", 1, 1, 100],
        ["second", 2, 2, 100],
      ],
    );
    expect(fits.admits("second", 2, 4, true)).toBe(true);
    expect(fits.turn().map((place) => place.secret)).toEqual(["first", "second"]);
  });

  it("the turn stops at the first place that does not fit, however small the ones behind it", () => {
    const seen = view(
      3,
      [["a", 1, 10]],
      [
        ["one", 1, 1, 100],
        ["three", 3, 2, 100],
        ["tiny", 1, 3, 100],
      ],
    );
    expect(seen.turn().map((place) => place.secret)).toEqual(["one"]);
    // The holder's release frees its permit, yet the turn still stops at the place for three.
    expect(seen.turn("a").map((place) => place.secret)).toEqual(["one"]);
    const freed = view(
      3,
      [],
      [
        ["three", 3, 2, 100],
        ["tiny", 1, 3, 100],
      ],
    );
    expect(freed.turn().map((place) => place.secret)).toEqual(["three"]);
    // A place the change removes is left out: the next one's turn may come.
    expect(freed.turn("three").map((place) => place.secret)).toEqual(["tiny"]);
  });

  it("orders the line by ticket, then secret, and grants by soonest expiry", () => {
    const seen = view(
      5,
      [
        ["late", 1, 50],
        ["soon", 1, 5],
      ],
      [
        ["b", 1, 2, 100],
        ["z", 1, 1, 100],
        ["a", 1, 2, 100],
      ],
    );
    expect(seen.waiters.map((place) => place.secret)).toEqual(["z", "a", "b"]);
    expect(seen.aheadOf("b")).toBe(2);
    expect(seen.aheadOf("not-in-line")).toBe(3);
    expect(seen.retryAfterMs()).toBe(5);
    expect(view(5, []).retryAfterMs()).toBe(1);
  });

  it("shows holders and waiters, and nothing for a semaphore nobody holds or waits for", () => {
    expect(view(2, [["a", 2, 40]], [["w", 1, 1, 100]]).state("s")).toEqual({
      name: "s",
      permits: 2,
      inUse: 2,
      holders: [{ holder: "holder of a", count: 2, fencingToken: 5n, ttlRemainingMs: 40 }],
      waiters: 1,
    });
    expect(view(2, [["gone", 2, -1]]).state("s")).toBeNull();
  });
});
