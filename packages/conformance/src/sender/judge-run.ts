import { docsUrl } from "../sources.js";
import { summarize } from "../summary.js";
import type { CheckInfo, CheckResult, Report, Verdict } from "../types.js";
import { senderChecks } from "./checks.js";
import type { DeliveryRules } from "./judge-delivery.js";
import { isGone, type Plan } from "./plan.js";
import { type Arrival, asExchange } from "./record.js";

type Finding = { verdict: Verdict; detail: string; shown?: readonly Arrival[]; note?: string };

function result(info: CheckInfo, finding: Finding): CheckResult {
  return {
    ...info,
    verdict: finding.verdict,
    detail: finding.detail,
    ...(finding.note ? { note: finding.note } : {}),
    exchanges: (finding.shown ?? []).slice(0, 3).map(asExchange),
    ms: 0,
    docs: docsUrl(info.id),
  };
}

/** A per-delivery check over every arrival: the first delivery that failed it, or how many passed. */
function perDelivery(info: CheckInfo, arrivals: readonly Arrival[]): Finding {
  if (arrivals.length === 0) return { verdict: "skip", detail: "no delivery arrived" };
  const bad = arrivals.filter((arrival) => arrival.problems[info.id] !== undefined);
  const [first] = bad;
  if (first)
    return {
      verdict: "fail",
      detail: `${bad.length} of ${arrivals.length} deliveries: ${first.problems[info.id]}`,
      shown: bad,
    };
  return { verdict: "pass", detail: `${arrivals.length} deliveries` };
}

function idsUnique(arrivals: readonly Arrival[]): Finding {
  const bodies = new Map<string, Set<string>>();
  for (const arrival of arrivals) {
    if (arrival.id === undefined) continue;
    bodies.set(arrival.id, (bodies.get(arrival.id) ?? new Set()).add(arrival.body));
  }
  const reused = [...bodies].filter(([, set]) => set.size > 1);
  const [first] = reused;
  if (first) {
    return {
      verdict: "fail",
      detail: `webhook-id "${first[0]}" carried ${first[1].size} different events`,
      shown: arrivals.filter((a) => a.id === first[0]),
    };
  }
  return { verdict: arrivals.length === 0 ? "skip" : "pass", detail: `${bodies.size} ids, each one event` };
}

function idStable(arrivals: readonly Arrival[], plan: Plan): Finding {
  const refused = [plan.refused500, plan.refused503].filter((a): a is Arrival => a !== undefined);
  if (refused.length === 0)
    return { verdict: "skip", detail: "no delivery was refused yet, so none was retried" };
  for (const first of refused) {
    const retries = arrivals.filter((a) => a.at > first.at && a.body === first.body);
    const changed = retries.find((retry) => retry.id !== first.id);
    if (changed)
      return {
        verdict: "fail",
        detail: `the retry of "${first.id}" came as "${changed.id}"`,
        shown: [first, changed],
      };
  }
  return { verdict: "pass", detail: `${refused.length} refused events retried with their id` };
}

function retried(
  arrivals: readonly Arrival[],
  plan: Plan,
  refused: Arrival | undefined,
  what: string,
): Finding | Arrival {
  if (!refused) return { verdict: "skip", detail: `no event arrived to answer ${what}` };
  const retry = arrivals.find((a) => a.at > refused.at && a.body === refused.body && !isGone(a.path, plan));
  return (
    retry ?? {
      verdict: "fail",
      detail: `the event answered ${what} ("${refused.id}") was not retried`,
      shown: [refused],
    }
  );
}

function retries(arrivals: readonly Arrival[], plan: Plan): Finding {
  const found = retried(arrivals, plan, plan.refused500, "500");
  if (!("at" in found)) return found;
  return {
    verdict: "pass",
    detail: `retried after ${Math.round(found.at - (plan.refused500?.at ?? found.at))} ms`,
  };
}

function retryAfter(arrivals: readonly Arrival[], plan: Plan): Finding {
  const found = retried(arrivals, plan, plan.refused503, `503 with Retry-After: ${plan.retryAfterSeconds}`);
  if (!("at" in found)) return found;
  const waited = found.at - (plan.refused503?.at ?? found.at);
  // Timers and clocks round: a retry up to 50 ms before the second boundary counts as on time.
  const pass = waited >= plan.retryAfterSeconds * 1000 - 50;
  return {
    verdict: pass ? "pass" : "fail",
    detail: `retried after ${Math.round(waited)} ms (Retry-After: ${plan.retryAfterSeconds} s)`,
    ...(pass ? {} : { shown: [plan.refused503 as Arrival, found] }),
  };
}

function goneStops(arrivals: readonly Arrival[], plan: Plan): Finding {
  const gone = arrivals.filter((a) => isGone(a.path, plan));
  const [first] = gone;
  if (!first)
    return {
      verdict: "skip",
      detail: `no delivery arrived at …${plan.gonePath}: subscribe an endpoint there to judge 410 handling`,
    };
  const after = gone.length - 1;
  if (after > 0) return { verdict: "fail", detail: `${after} deliveries arrived after the 410`, shown: gone };
  return {
    verdict: "pass",
    detail: "one delivery, answered 410, and nothing after it",
    note: "Deliveries that were due after the report was taken cannot be seen.",
  };
}

/** The sender suite's report over the arrivals so far. */
export function judgeRun(
  arrivals: readonly Arrival[],
  plan: Plan,
  rules: DeliveryRules,
  target: string,
): Report {
  const main = arrivals.filter((a) => !isGone(a.path, plan));
  const started = arrivals[0]?.at ?? rules.now();
  const { headers, signature, timestamp, contentType, bearer, payload } = senderChecks;
  const results = [
    result(headers, perDelivery(headers, arrivals)),
    result(signature, perDelivery(signature, arrivals)),
    result(timestamp, perDelivery(timestamp, arrivals)),
    result(contentType, perDelivery(contentType, arrivals)),
    result(
      bearer,
      rules.token === undefined
        ? { verdict: "skip", detail: "needs --token" }
        : perDelivery(bearer, arrivals),
    ),
    result(payload, perDelivery(payload, arrivals)),
    result(senderChecks.idsUnique, idsUnique(main)),
    result(senderChecks.idStable, idStable(main, plan)),
    result(senderChecks.retries, retries(main, plan)),
    result(senderChecks.retryAfter, retryAfter(main, plan)),
    result(senderChecks.gone, goneStops(arrivals, plan)),
  ];
  return { suite: "sender", target, results, summary: summarize(results, rules.now() - started) };
}
