import { createHmac } from "node:crypto";
import { createKeyPair, createSecret, parseSecret, signatureHeader } from "@plant-store/core";
import { SOURCES } from "../../sources.js";
import { is2xx, is4xx, judgeAll, type ReceiverCheck } from "../check.js";
import type { ReceiverContext } from "../context.js";

/** How far outside the usual 5-minute tolerance the timestamp checks go. */
const SKEW_SECONDS = 600;

/** A delivery whose signature header is `alter(valid header)`, everything else valid. */
async function withSignature(context: ReceiverContext, alter: (valid: string) => string, body?: string) {
  const { entry, id, timestamp, body: valid } = context.message();
  const sent = body ?? valid;
  const signature = (await context.sign(id, timestamp, sent)) ?? "";
  return context.deliver({ entry, id, timestamp, body: sent, signature: alter(signature) });
}

/** The first signature's base64 with one character changed: same length, same shape, wrong bytes. */
function flipped(header: string): string {
  const [first = ""] = header.split(" ");
  const comma = first.indexOf(",");
  const value = first.slice(comma + 1);
  const swapped = (value[0] === "A" ? "B" : "A") + value.slice(1);
  return `${first.slice(0, comma)},${swapped}`;
}

/** A signature made with another secret (or key) than the receiver holds. */
async function foreignSignature(context: ReceiverContext, id: string, timestamp: string, body: string) {
  if (context.options.secrets.length > 0)
    return signatureHeader({ secrets: [createSecret()], id, timestamp, body });
  const { privateKey } = await createKeyPair();
  return signatureHeader({ privateKeys: [privateKey], id, timestamp, body });
}

/** A `v1` signature over any timestamp text, digits or not: the library signs only well-formed ones. */
function v1Over(secret: string, id: string, timestamp: string, body: string): string {
  const mac = createHmac("sha256", parseSecret(secret)).update(`${id}.${timestamp}.${body}`).digest("base64");
  return `v1,${mac}`;
}

async function withTimestamp(context: ReceiverContext, timestamp: string) {
  const { entry, id, body } = context.message();
  const [secret] = context.options.secrets;
  const digits = /^\d+$/.test(timestamp);
  const signature =
    digits || !secret
      ? await context.sign(id, digits ? timestamp : String(context.nowSeconds()), body)
      : v1Over(secret, id, timestamp, body);
  return context.deliver({ entry, id, timestamp, body, signature: signature ?? null });
}

const refused = "4xx";

export const signatureChecks: readonly ReceiverCheck[] = [
  {
    id: "signature.wrong",
    title: "A wrong signature is refused",
    level: "MUST",
    source: SOURCES.swVerifying,
    needs: ["signing"],
    why: "A receiver that accepts a wrong signature accepts forged events from anyone who knows its URL.",
    fix: "Compute the signature over `id.timestamp.body` with your secret and compare it in constant time; answer 401 when none matches.",
    run: async (context) =>
      judgeAll(
        [{ label: "one byte changed", exchange: await withSignature(context, flipped) }],
        is4xx,
        refused,
      ),
  },
  {
    id: "signature.missing",
    title: "A delivery without webhook-signature is refused",
    level: "MUST",
    source: SOURCES.swHeaders,
    needs: ["signing"],
    why: "Treating an absent signature as 'nothing to check' lets any request through.",
    fix: "Require the webhook-signature header whenever a secret or key is configured, and answer 401 without it.",
    run: async (context) =>
      judgeAll(
        [{ label: "no signature header", exchange: await withSignature(context, () => "") }],
        is4xx,
        refused,
      ),
  },
  {
    id: "signature.headers-missing",
    title: "A delivery without webhook-id or webhook-timestamp is refused",
    level: "MUST",
    source: SOURCES.swMetadata,
    needs: ["signing"],
    why: "The id and the timestamp are part of what is signed; without them the signature cannot be checked, nor replays refused.",
    fix: "Require webhook-id and webhook-timestamp and include them in the signed content `id.timestamp.body`.",
    run: async (context) => {
      const { entry, id, timestamp, body } = context.message();
      const signature = (await context.sign(id, timestamp, body)) ?? null;
      return judgeAll(
        [
          {
            label: "no webhook-id",
            exchange: await context.deliver({ entry, id: null, timestamp, body, signature }),
          },
          {
            label: "no webhook-timestamp",
            exchange: await context.deliver({ entry, id, timestamp: null, body, signature }),
          },
        ],
        is4xx,
        refused,
      );
    },
  },
  {
    id: "signature.truncated",
    title: "A truncated signature is refused",
    level: "MUST",
    source: SOURCES.swVerifying,
    needs: ["signing"],
    why: "A comparison that stops at the shorter input accepts a prefix of the right signature.",
    fix: "Compare the whole decoded signature, equal lengths only, in constant time.",
    run: async (context) =>
      judgeAll(
        [
          {
            label: "half the signature",
            exchange: await withSignature(context, (valid) => (valid.split(" ")[0] ?? "").slice(0, 24)),
          },
        ],
        is4xx,
        refused,
      ),
  },
  {
    id: "signature.other-secret",
    title: "A signature made with another secret is refused",
    level: "MUST",
    source: SOURCES.swVerifying,
    needs: ["signing"],
    why: "Only the endpoint's own secret (or trusted keys) may authenticate a delivery.",
    fix: "Verify with the secrets configured for this endpoint only; never with one taken from the request.",
    run: async (context) => {
      const { entry, id, timestamp, body } = context.message();
      const signature = await foreignSignature(context, id, timestamp, body);
      return judgeAll(
        [
          {
            label: "another secret",
            exchange: await context.deliver({ entry, id, timestamp, body, signature }),
          },
        ],
        is4xx,
        refused,
      );
    },
  },
  {
    id: "signature.rotation",
    title: "Two signatures, one of them valid, are accepted",
    level: "MUST",
    source: SOURCES.swHeaders,
    needs: ["signing"],
    why: "During a secret rotation the sender signs with the old and the new secret; the receiver must accept if any matches.",
    fix: "Split webhook-signature on spaces and accept when any `v1,` (or `v1a,`) entry verifies.",
    run: async (context) =>
      judgeAll(
        [
          {
            label: "a wrong signature, then the valid one",
            exchange: await withSignature(context, (valid) => `${flipped(valid)} ${valid}`),
          },
        ],
        is2xx,
        "2xx",
      ),
  },
  {
    id: "signature.v1a",
    title: "An ed25519 (v1a) signature alone is accepted",
    level: "MUST",
    source: SOURCES.swSignatureScheme,
    needs: ["privateKey"],
    why: "A receiver given a public key must verify asymmetric signatures, with no v1 signature beside them.",
    fix: "Verify `v1a,` entries with ed25519 against the configured `whpk_` public keys.",
    run: async (context) => {
      const { entry, id, timestamp, body } = context.message();
      const signature = await signatureHeader({
        privateKeys: [...context.options.privateKeys],
        id,
        timestamp,
        body,
      });
      return judgeAll(
        [{ label: "v1a only", exchange: await context.deliver({ entry, id, timestamp, body, signature }) }],
        is2xx,
        "2xx",
      );
    },
  },
  {
    id: "signature.v1a-other-key",
    title: "A v1a signature of an untrusted key is refused",
    level: "MUST",
    source: SOURCES.swSignatureScheme,
    needs: ["verifyingKey"],
    why: "A valid ed25519 signature proves nothing unless its key is on the receiver's trust list.",
    fix: "Verify v1a signatures only against the public keys you configured, never one read from the request.",
    run: async (context) => {
      const { entry, id, timestamp, body } = context.message();
      const { privateKey } = await createKeyPair();
      const signature = await signatureHeader({ privateKeys: [privateKey], id, timestamp, body });
      return judgeAll(
        [
          {
            label: "another key's v1a",
            exchange: await context.deliver({ entry, id, timestamp, body, signature }),
          },
        ],
        is4xx,
        refused,
      );
    },
  },
  {
    id: "signature.body-altered",
    title: "A body changed after signing is refused",
    level: "MUST",
    source: SOURCES.swSignatureScheme,
    needs: ["signing"],
    why: "The signature covers the exact bytes; one added byte must fail it, or the body can be tampered with.",
    fix: "Verify the raw body bytes exactly as received, before any parsing.",
    run: async (context) => {
      const { entry, id, timestamp, body } = context.message();
      const signature = (await context.sign(id, timestamp, body)) ?? null;
      const exchange = await context.deliver({ entry, id, timestamp, body: `${body} `, signature });
      return judgeAll([{ label: "a space appended after signing", exchange }], is4xx, refused);
    },
  },
  {
    id: "signature.raw-bytes",
    title: "A signature over unusually formatted JSON is accepted",
    level: "MUST",
    source: SOURCES.swSignatureScheme,
    needs: ["signing"],
    why: "Receivers that parse and re-serialize the body before verifying reject every delivery whose bytes differ from their serializer's.",
    fix: "Verify the signature over the raw body bytes, not over JSON.stringify of the parsed body.",
    run: async (context) => {
      const value = JSON.parse(context.message().body) as Record<string, unknown>;
      const reordered = Object.fromEntries(Object.entries(value).reverse());
      const body = `${JSON.stringify(reordered, null, 3)}\n`;
      return judgeAll(
        [
          {
            label: "pretty-printed, keys reordered",
            exchange: await withSignature(context, (valid) => valid, body),
          },
        ],
        is2xx,
        "2xx",
      );
    },
  },
  {
    id: "timestamp.stale",
    title: "A timestamp 10 minutes old is refused",
    level: "MUST",
    source: SOURCES.swVerifying,
    needs: ["signing"],
    why: "Without a freshness window a captured delivery can be replayed forever.",
    fix: "Refuse deliveries whose webhook-timestamp is more than your tolerance (5 minutes is usual) before now.",
    run: async (context) =>
      judgeAll(
        [
          {
            label: "10 minutes old",
            exchange: await withTimestamp(context, String(context.nowSeconds() - SKEW_SECONDS)),
          },
        ],
        is4xx,
        refused,
      ),
  },
  {
    id: "timestamp.future",
    title: "A timestamp 10 minutes ahead is refused",
    level: "MUST",
    source: SOURCES.swVerifying,
    needs: ["signing"],
    why: "A window open towards the future lets a delivery signed ahead of time be used later.",
    fix: "Refuse deliveries whose webhook-timestamp is more than your tolerance after now, not only before.",
    run: async (context) =>
      judgeAll(
        [
          {
            label: "10 minutes ahead",
            exchange: await withTimestamp(context, String(context.nowSeconds() + SKEW_SECONDS)),
          },
        ],
        is4xx,
        refused,
      ),
  },
  {
    id: "timestamp.non-numeric",
    title: "A non-numeric timestamp is refused",
    level: "MUST",
    source: SOURCES.swHeaders,
    needs: ["secret"],
    why: "A lenient number parser reads `1700000000abc` as a valid time; the header is integer seconds only.",
    fix: "Accept webhook-timestamp only when it is all digits, then compare it with now.",
    run: async (context) =>
      judgeAll(
        [
          {
            label: "digits followed by letters",
            exchange: await withTimestamp(context, `${context.nowSeconds()}abc`),
          },
        ],
        is4xx,
        refused,
      ),
  },
];
