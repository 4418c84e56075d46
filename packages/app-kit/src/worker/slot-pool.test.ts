import type { ClaimedDelivery } from "@plant-store/store";
import { describe, expect, it } from "vitest";
import { SlotPool } from "./slot-pool.js";

let nextId = 1;
const claimed = (subscription: string, leaseExpiresAt = Date.now() + 60_000): ClaimedDelivery =>
  ({
    id: nextId++,
    subscription: { id: subscription },
    leaseExpiresAt: new Date(leaseExpiresAt),
  }) as ClaimedDelivery;

describe("SlotPool", () => {
  it("starts claimed deliveries in order within both caps; the rest wait, still counted as held", () => {
    const pool = new SlotPool(4, 2);
    const [a1, a2, a3, b1, b2, c1] = [
      claimed("a"),
      claimed("a"),
      claimed("a"),
      claimed("b"),
      claimed("b"),
      claimed("c"),
    ];
    pool.add([a1!, a2!, a3!, b1!, b2!, c1!]);
    expect(pool.room).toBe(2);
    // a3 waits for a's cap; c1 for the total.
    expect(pool.take()).toEqual([a1, a2, b1, b2]);
    expect([pool.inFlight, pool.waiting, pool.held("a"), pool.held("c")]).toEqual([4, 2, 3, 1]);
    expect(pool.full().sort()).toEqual(["a", "b"]);
    expect(pool.take()).toEqual([]);
    pool.done(b1!);
    // The freed slot is b's, but a is still at its cap: the first startable one is c1.
    expect(pool.take()).toEqual([c1]);
    pool.done(a1!);
    expect(pool.take()).toEqual([a3]);
    for (const d of [a2, a3, b2, c1]) pool.done(d!);
    expect([pool.inFlight, pool.waiting, pool.room, pool.full()]).toEqual([0, 0, 8, []]);
  });

  it("drops waiting deliveries whose lease would end first, and everything on request", () => {
    const pool = new SlotPool(1, 1);
    const now = Date.now();
    const [running, soon, late] = [claimed("a"), claimed("b", now + 100), claimed("c", now + 60_000)];
    pool.add([running!, soon!, late!]);
    expect(pool.take()).toEqual([running]);
    expect(pool.drop(now + 1000)).toEqual([soon]);
    expect([pool.waiting, pool.held("b"), pool.held("c")]).toEqual([1, 0, 1]);
    expect(pool.drop()).toEqual([late]);
    expect([pool.waiting, pool.inFlight, pool.full()]).toEqual([0, 1, ["a"]]);
  });
});
