/**
 * One example payload of `spec/examples/`.
 * - `valid`: accepted by the JSON Schema and by core's default mode;
 * - `lossless`: accepted by the JSON Schema, but its int64 `id` is beyond 2^53, so only core's lossless mode takes it;
 * - `invalid`: rejected everywhere.
 */
export interface ExamplePayload {
  readonly name: string;
  readonly group: "valid" | "lossless" | "invalid";
  /** The exact bytes (UTF-8) of the payload. */
  readonly raw: string;
}
