import { document } from "@plant-store/spec";
import type * as z from "zod";
import { compileSchema } from "./compile-schema.js";

/**
 * The error body of every non-2xx answer (`components.schemas.Error`), compiled from the spec: an int32 `error`
 * (the HTTP status) and a string `message`; other keys are kept.
 *
 * @example
 * ```ts
 * ApiError.parse({ error: 422, message: "At /id: id is missing." });
 * ```
 */
export const ApiError = compileSchema(document.components.schemas.Error, { mode: "safe", name: "error body" })
  .zod as z.ZodType<ApiError>;
/** `{ error: number; message: string }`. */
export type ApiError = { error: number; message: string };
