import { int64Paths, requiredProperties, sampleFromSchema, toJsonText } from "../../payload/from-schema.js";
import { SOURCES } from "../../sources.js";
import { answer, is2xx, is4xx, judgeAll, type ReceiverCheck } from "../check.js";
import type { ReceiverContext } from "../context.js";

async function eachEntry(
  context: ReceiverContext,
  bodies: (entry: ReceiverContext["entries"][number]) => { label: string; body: string }[],
) {
  const sent = [];
  for (const entry of context.entries) {
    for (const { label, body } of bodies(entry))
      sent.push({ label, exchange: await context.deliver({ entry, body }) });
  }
  return sent;
}

/** A body of the entry without its first required property, and that property's name. */
function withoutRequired(context: ReceiverContext) {
  const entry = context.entries.find((candidate) => requiredProperties(candidate.schema).length > 0);
  if (!entry) return undefined;
  const missing = requiredProperties(entry.schema)[0] as string;
  const value = JSON.parse(context.validBody(entry)) as Record<string, unknown>;
  delete value[missing];
  return { entry, missing, body: JSON.stringify(value) };
}

export const payloadChecks: readonly ReceiverCheck[] = [
  {
    id: "payload.examples",
    title: "Every example of every webhook is accepted",
    level: "MUST",
    source: SOURCES.specPayload,
    why: "The document's examples are valid events; a receiver that refuses one refuses real deliveries.",
    fix: "Validate against the webhook's schema as published, and accept every example it gives with a 2xx.",
    run: async (context) =>
      judgeAll(
        await eachEntry(context, (entry) =>
          entry.examples.map((example) => ({
            label: `${entry.type} example "${example.name}"`,
            body: JSON.stringify(example.value),
          })),
        ),
        is2xx,
        "2xx",
      ),
  },
  {
    id: "payload.generated",
    title: "A payload with every declared property is accepted",
    level: "MUST",
    source: SOURCES.specPayload,
    why: "Optional properties (such as `tag`) arrive in real deliveries; a receiver must take them.",
    fix: "Accept every property the schema declares, optional ones included, and unknown extra properties where the schema allows them.",
    run: async (context) =>
      judgeAll(
        await eachEntry(context, (entry) => [
          { label: `${entry.type} generated`, body: toJsonText(sampleFromSchema(entry.schema)) },
        ]),
        is2xx,
        "2xx",
      ),
  },
  {
    id: "payload.int64",
    title: "int64 values beyond 2^53 are accepted",
    level: "MUST",
    source: SOURCES.specPayload,
    why: "`format: int64` allows values a double cannot hold; a receiver that parses with doubles refuses or silently rounds them.",
    fix: "Parse int64 fields losslessly (a big-integer or string-preserving JSON reader) and accept any value up to 2^63-1.",
    run: async (context) => {
      const sent = await eachEntry(context, (entry) =>
        int64Paths(entry.schema).map((path) => ({
          label: `${entry.type} /${path.join("/")} = 9007199254740993`,
          body: toJsonText(sampleFromSchema(entry.schema, [path])),
        })),
      );
      if (sent.length === 0)
        return { pass: true, detail: "no int64 property in the document", exchanges: [] };
      return judgeAll(sent, is2xx, "2xx");
    },
  },
  {
    id: "payload.schema-violation",
    title: "A payload missing a required property is refused with 4xx",
    level: "MUST",
    source: SOURCES.specResponses,
    why: "Storing an event that breaks the schema hands a bad record to everything downstream; a 4xx tells the sender at once.",
    fix: "Validate the parsed body against the webhook's schema before storing it, and answer 4xx when it does not match.",
    run: async (context) => {
      const broken = withoutRequired(context);
      if (!broken) return { pass: true, detail: "no webhook has a required property", exchanges: [] };
      return judgeAll(
        [{ label: `without "${broken.missing}"`, exchange: await context.deliver(broken) }],
        is4xx,
        "4xx",
      );
    },
  },
  {
    id: "payload.schema-violation-422",
    title: "A schema violation answers 422 naming the property",
    level: "SHOULD",
    source: SOURCES.specResponses,
    why: "A 422 that names the field lets the sender's operator fix the event without reading the receiver's logs.",
    fix: "Answer 422 with a message that names the offending property (or its JSON pointer).",
    run: async (context) => {
      const broken = withoutRequired(context);
      if (!broken) return { pass: true, detail: "no webhook has a required property", exchanges: [] };
      const exchange = await context.deliver(broken);
      const named = exchange.response?.body.includes(broken.missing) ?? false;
      const pass = exchange.response?.status === 422 && named;
      const detail = pass
        ? `answered 422 naming "${broken.missing}"`
        : `${answer(exchange)}${exchange.response?.status === 422 ? " without naming the property" : ""}; expected 422 naming "${broken.missing}"`;
      return { pass, detail, exchanges: [exchange] };
    },
  },
  {
    id: "payload.not-json",
    title: "A body that is not JSON is refused with 4xx",
    level: "MUST",
    source: SOURCES.specResponses,
    why: "A truncated or corrupt body must not be stored as an event.",
    fix: "Parse the body as JSON after verifying it and answer 400 when it does not parse.",
    run: async (context) => {
      const { entry } = context.message();
      const body = context.validBody(entry).slice(0, -1);
      return judgeAll(
        [{ label: "truncated JSON", exchange: await context.deliver({ entry, body }) }],
        is4xx,
        "4xx (400)",
      );
    },
  },
  {
    id: "payload.content-type",
    title: "A body sent as text/plain is refused with 415",
    level: "SHOULD",
    source: SOURCES.specResponses,
    why: "The contract's deliveries are `application/json`; accepting other media types hides a misconfigured sender.",
    fix: "Answer 415 when the content type is not application/json.",
    run: async (context) => {
      const { entry } = context.message();
      const exchange = await context.deliver({ entry, contentType: "text/plain" });
      return judgeAll(
        [{ label: "content-type: text/plain", exchange }],
        (e) => e.response?.status === 415,
        "415",
      );
    },
  },
  {
    id: "payload.oversized",
    title: "An oversized body is refused with 413",
    level: "SHOULD",
    source: SOURCES.specResponses,
    why: "An unbounded body lets one request exhaust the receiver's memory; 413 tells the sender the refusal is permanent.",
    fix: "Cap the body size while reading it and answer 413 beyond the cap, after reading or discarding the rest so the client sees the answer.",
    run: async (context) => {
      const { entry } = context.message();
      const valid = context.validBody(entry);
      const pad = Math.max(0, context.options.oversizedBytes - valid.length - 16);
      const body = `${valid.slice(0, -1)},"padding":"${"x".repeat(pad)}"}`;
      const exchange = await context.deliver({ entry, body });
      return judgeAll(
        [{ label: `${body.length} bytes`, exchange }],
        (e) => e.response?.status === 413,
        "413",
      );
    },
  },
];
