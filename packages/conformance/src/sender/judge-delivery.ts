import { timingSafeEqual } from "node:crypto";
import { parseEvent, verify } from "@plant-store/core";
import { type Catalog, EVENT_TYPE_HEADER, WEBHOOK_HEADERS } from "@plant-store/spec";

/** What the judge knows to check one delivery with. */
export interface DeliveryRules {
  readonly secrets: readonly string[];
  readonly publicKeys: readonly string[];
  readonly token: string | undefined;
  readonly catalog: Catalog;
  readonly toleranceSeconds: number;
  readonly now: () => number;
}

/** A tolerance no sender's clock misses: the signature check judges the bytes, not the time. */
const ANY_TIME_SECONDS = 100 * 365 * 24 * 3600;

function sameSecret(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function judgeSigning(headers: Record<string, string>, body: Uint8Array, rules: DeliveryRules) {
  const result = await verify({
    secrets: [...rules.secrets],
    publicKeys: [...rules.publicKeys],
    id: headers[WEBHOOK_HEADERS.id],
    timestamp: headers[WEBHOOK_HEADERS.timestamp],
    signature: headers[WEBHOOK_HEADERS.signature],
    body,
    toleranceSeconds: ANY_TIME_SECONDS,
    now: rules.now,
  });
  if (result.ok) {
    const skew = Math.abs(rules.now() / 1000 - result.timestamp);
    const stale =
      skew > rules.toleranceSeconds
        ? `timestamp ${Math.round(skew)} s away from now (tolerance ${rules.toleranceSeconds} s)`
        : undefined;
    return { headers: undefined, signature: undefined, timestamp: stale };
  }
  const malformed = result.code === "missing_headers" || result.code.startsWith("malformed_");
  return {
    headers: malformed ? `${result.code}: ${result.message}` : undefined,
    signature: `${result.code}: ${result.message}`,
    timestamp: malformed ? "no readable timestamp" : undefined,
  };
}

function judgePayload(
  path: string,
  headers: Record<string, string>,
  body: Uint8Array,
  catalog: Catalog,
): string | undefined {
  const type = headers[EVENT_TYPE_HEADER];
  const entry =
    (type ? catalog.find((candidate) => candidate.type === type) : undefined) ??
    catalog.find((candidate) => path.endsWith(candidate.path)) ??
    catalog[0];
  if (!entry) return "the document has no webhook";
  const result = parseEvent(entry, body);
  return result.ok ? undefined : `${entry.type}: ${result.message}`;
}

/** Every per-delivery check's verdict for one delivery: `undefined` passes, a string says what is wrong. */
export async function judgeDelivery(
  path: string,
  headers: Record<string, string>,
  body: Uint8Array,
  rules: DeliveryRules,
) {
  const signing = await judgeSigning(headers, body, rules);
  const contentType = (headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  const authorization = headers.authorization ?? "";
  const bearer =
    rules.token === undefined
      ? undefined
      : /^bearer /i.test(authorization) && sameSecret(authorization.slice(7), rules.token)
        ? undefined
        : authorization
          ? "the Authorization header does not carry the endpoint's bearer token"
          : "no Authorization header";
  return {
    "sender.headers": signing.headers,
    "sender.signature": signing.signature,
    "sender.timestamp-fresh": signing.timestamp,
    "sender.content-type":
      contentType === "application/json" ? undefined : `content-type "${headers["content-type"] ?? ""}"`,
    "sender.bearer": bearer,
    "sender.payload": judgePayload(path, headers, body, rules.catalog),
  };
}
