import { SOURCES } from "../../sources.js";
import { answer, is2xx, judgeAll, type ReceiverCheck, responseHeader } from "../check.js";
import type { ReceiverContext } from "../context.js";

function deliverWith(context: ReceiverContext, authorization: string | null) {
  return context.deliver({ entry: context.message().entry, authorization });
}

/** 401 carrying a `Bearer` challenge, as RFC 6750 §3 requires of a protected resource. */
function challenged(exchange: Parameters<typeof responseHeader>[0]): boolean {
  const challenge = responseHeader(exchange, "www-authenticate") ?? "";
  return exchange.response?.status === 401 && /^bearer\b/i.test(challenge.trim());
}

const expected = "401 with WWW-Authenticate: Bearer";

export const bearerChecks: readonly ReceiverCheck[] = [
  {
    id: "bearer.missing",
    title: "A delivery without a token is refused with 401 and a Bearer challenge",
    level: "MUST",
    source: SOURCES.rfc6750Challenge,
    needs: ["token"],
    why: "The document puts every webhook under bearerAuth; a request without credentials gets 401 and a challenge.",
    fix: 'Answer 401 with `WWW-Authenticate: Bearer realm="…"` when the Authorization header is absent.',
    run: async (context) =>
      judgeAll(
        [{ label: "no Authorization", exchange: await deliverWith(context, null) }],
        challenged,
        expected,
      ),
  },
  {
    id: "bearer.wrong",
    title: "A wrong token is refused with 401 and a Bearer challenge",
    level: "MUST",
    source: SOURCES.rfc6750Challenge,
    needs: ["token"],
    why: "A receiver that accepts any token is open to anyone.",
    fix: "Compare the presented token with the configured ones in constant time and answer 401 with a Bearer challenge when none matches.",
    run: async (context) =>
      judgeAll(
        [
          {
            label: "another token",
            exchange: await deliverWith(context, `Bearer ${context.options.token}x`),
          },
        ],
        challenged,
        expected,
      ),
  },
  {
    id: "bearer.wrong-error-code",
    title: 'A wrong token\'s challenge says error="invalid_token"',
    level: "SHOULD",
    source: SOURCES.rfc6750Errors,
    needs: ["token"],
    why: "The error code tells the sender's operator the token was read and refused, not missing.",
    fix: 'Add `error="invalid_token"` to the challenge when a token was presented and refused.',
    run: async (context) => {
      const exchange = await deliverWith(context, `Bearer ${context.options.token}x`);
      const challenge = responseHeader(exchange, "www-authenticate") ?? "";
      const pass = challenged(exchange) && /error="invalid_token"/.test(challenge);
      return {
        pass,
        detail: pass
          ? `401, ${challenge}`
          : `${answer(exchange)}, challenge "${challenge}"; expected error="invalid_token"`,
        exchanges: [exchange],
      };
    },
  },
  {
    id: "bearer.wrong-scheme",
    title: "Credentials of another scheme are refused with 401",
    level: "MUST",
    source: SOURCES.rfc6750Challenge,
    needs: ["token"],
    why: "`Basic <token>` carries no bearer token; accepting it means the scheme is never read.",
    fix: "Accept only the Bearer scheme and answer 401 with a Bearer challenge to any other.",
    run: async (context) =>
      judgeAll(
        [{ label: "Basic scheme", exchange: await deliverWith(context, `Basic ${context.options.token}`) }],
        challenged,
        expected,
      ),
  },
  {
    id: "bearer.lowercase-scheme",
    title: "A lower-case `bearer` scheme is accepted",
    level: "MUST",
    source: SOURCES.rfc9110Scheme,
    needs: ["token"],
    why: "Authentication schemes are case-insensitive (RFC 9110 §11.1, RFC 6750 §2.1); senders may write `bearer`.",
    fix: "Match the scheme name case-insensitively.",
    run: async (context) =>
      judgeAll(
        [
          {
            label: "bearer <token>",
            exchange: await deliverWith(context, `bearer ${context.options.token}`),
          },
        ],
        is2xx,
        "2xx",
      ),
  },
];
