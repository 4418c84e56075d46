import { parseNewPlant, serializeNewPlant } from "@plant-store/core";
import { CliError } from "../../cli-error.js";

const INT64_MAX = 2n ** 63n - 1n;

/**
 * The payloads of `--count`: the given object with its `id` replaced per request, counted up exactly as int64 (a
 * JavaScript number would round ids beyond 2^53 into duplicates). A valid New Plant keeps every other field exactly;
 * any other JSON object (to test a receiver's 422, say) is re-serialized with `JSON.stringify`.
 *
 * @example
 * ```ts
 * const { first, render } = countedPayloads(Buffer.from('{"id":7,"name":"Fern"}'), 3);
 * render(first + 2n); // '{"id":9,"name":"Fern"}'
 * ```
 */
export function countedPayloads(
  body: Buffer,
  count: number,
): { first: bigint; render: (id: bigint) => string } {
  const plant = parseNewPlant(body, { mode: "lossless" });
  let first: bigint;
  let render: (id: bigint) => string;
  if (plant.ok) {
    first = plant.value.id;
    render = (id) => serializeNewPlant({ ...plant.value, id });
  } else {
    let value: unknown;
    try {
      value = JSON.parse(body.toString("utf8").replace(/^\uFEFF/, ""));
    } catch {
      value = undefined;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new CliError("--count needs a JSON object payload (its id is replaced per request).", 2);
    }
    const { id: given, ...rest } = value as Record<string, unknown>;
    first = Number.isSafeInteger(given) ? BigInt(given as number) : 1n;
    const tail = JSON.stringify(rest).slice(1); // the other members and the closing brace
    render = (id) => `{"id":${id}${tail === "}" ? "" : ","}${tail}`;
  }
  if (first + BigInt(count - 1) > INT64_MAX) {
    throw new CliError(
      `--count ${count} from id ${first} goes beyond the int64 range; start from a lower --id.`,
      2,
    );
  }
  return { first, render };
}
