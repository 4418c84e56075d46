import * as z from "zod";
import { describeValue } from "./describe.js";

/**
 * The error body of every non-2xx response (`components.schemas.Error`): `error`, the HTTP status as an
 * int32, and a `message` saying what is wrong and what to do. Other properties are kept.
 *
 * @example
 * ```ts
 * ApiError.parse({ error: 422, message: "id must be an integer; got 1.5. Send a whole number." });
 * ```
 */
export const ApiError = z.looseObject(
  {
    error: z.int32({
      error: (issue) =>
        issue.input === undefined
          ? 'error is missing. Add the HTTP status as an integer, e.g. "error": 422.'
          : `error must be an int32 integer (the HTTP status); got ${describeValue(issue.input)}.`,
    }),
    message: z.string({
      error: (issue) =>
        issue.input === undefined
          ? "message is missing. Add a string that says what is wrong and what to do."
          : `message must be a string; got ${describeValue(issue.input)}.`,
    }),
  },
  {
    error: (issue) =>
      `An error body must be a JSON object {"error": <status>, "message": "…"}; got ${describeValue(issue.input)}.`,
  },
);
/** An error body as {@link ApiError} outputs it. */
export type ApiError = z.infer<typeof ApiError>;
