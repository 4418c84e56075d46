import type { Delivery } from "./sender-api.js";

const OUTCOMES = ["delivered", "failed", "pending"] as const;
type Outcome = (typeof OUTCOMES)[number];
const BUCKETS = 12;
const BUCKET_MS = 5 * 60_000;

/** Deliveries created in the last hour, per five minutes and by outcome (pending counts leased too). */
export function bucketByOutcome(deliveries: readonly Delivery[], now: number): Record<Outcome, number>[] {
  const buckets = Array.from({ length: BUCKETS }, () => ({ delivered: 0, failed: 0, pending: 0 }));
  for (const d of deliveries) {
    const age = now - Date.parse(d.createdAt);
    if (age < 0 || age >= BUCKETS * BUCKET_MS) continue;
    const bucket = buckets[BUCKETS - 1 - Math.floor(age / BUCKET_MS)];
    if (!bucket) continue;
    bucket[d.state === "leased" ? "pending" : d.state]++;
  }
  return buckets;
}

/** A stacked bar chart of {@link bucketByOutcome}, with the totals in words beside it. */
export function OutcomeChart({ deliveries, now }: { deliveries: readonly Delivery[]; now: number }) {
  const buckets = bucketByOutcome(deliveries, now);
  const totals = { delivered: 0, failed: 0, pending: 0 };
  for (const b of buckets) for (const o of OUTCOMES) totals[o] += b[o];
  const max = Math.max(1, ...buckets.map((b) => b.delivered + b.failed + b.pending));
  const width = 600;
  const height = 160;
  const bar = width / BUCKETS;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height + 20}`} role="img" aria-labelledby="chart-caption">
        <title>Deliveries by outcome, last hour</title>
        {buckets.map((b, i) => {
          let y = height;
          return OUTCOMES.map((o) => {
            const h = (b[o] / max) * (height - 10);
            y -= h;
            return h > 0 ? (
              <rect key={`${i}-${o}`} class={`fill-${o}`} x={i * bar + 4} y={y} width={bar - 8} height={h} />
            ) : null;
          });
        })}
        <line x1="0" y1={height} x2={width} y2={height} class="axis" />
        <text x="0" y={height + 16} class="tick">
          60 min ago
        </text>
        <text x={width} y={height + 16} class="tick" text-anchor="end">
          now
        </text>
      </svg>
      <figcaption id="chart-caption">
        Deliveries created in the last hour, per 5 minutes: <span class="key key-delivered" />{" "}
        {totals.delivered} delivered, <span class="key key-failed" /> {totals.failed} failed,{" "}
        <span class="key key-pending" /> {totals.pending} pending.
      </figcaption>
    </figure>
  );
}
