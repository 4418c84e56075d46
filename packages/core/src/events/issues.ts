import type * as z from "zod";
import { toJsonPointer } from "../json/pointer.js";

/**
 * One problem with a payload: where (RFC 6901 JSON Pointer, `""` for the whole body) and what to do.
 *
 * @example
 * ```ts
 * const issue: Issue = { pointer: "/id", message: "id must be an integer; got 1.5. Send a whole number." };
 * ```
 */
export interface Issue {
  pointer: string;
  message: string;
}

/**
 * Turns a zod error into {@link Issue}s, one per zod issue, in zod's order.
 *
 * @example
 * ```ts
 * const result = NewPlant.safeParse({ id: 1.5, name: "x" });
 * if (!result.success) toIssues(result.error); // [{ pointer: "/id", message: "id must be an integer; got 1.5. …" }]
 * ```
 */
export function toIssues(error: z.ZodError): Issue[] {
  return error.issues.map((issue) => ({ pointer: toJsonPointer(issue.path), message: issue.message }));
}

/**
 * One message that names every pointer, for an error response body.
 *
 * @example
 * ```ts
 * describeIssues("The body does not match the NewPlant schema.", [{ pointer: "/id", message: "id is missing." }]);
 * // "The body does not match the NewPlant schema. At /id: id is missing."
 * ```
 */
export function describeIssues(headline: string, issues: readonly Issue[]): string {
  const details = issues.map(
    (issue) => `At ${issue.pointer === "" ? "the root" : issue.pointer}: ${issue.message}`,
  );
  return [headline, ...details].join(" ");
}
