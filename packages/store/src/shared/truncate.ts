/**
 * The most response bytes kept per attempt.
 *
 * @example
 * ```ts
 * await outbox.record(d, { kind: "delivered", status: 200, latencyMs, responseBody }); // cut to MAX_RESPONSE_BYTES
 * ```
 */
export const MAX_RESPONSE_BYTES = 4096;

/**
 * Cuts text to at most `maxBytes` of UTF-8 without splitting a character.
 *
 * @example
 * ```ts
 * truncateUtf8("é".repeat(3000), 4096).length; // 2048
 * ```
 */
export function truncateUtf8(input: string | Uint8Array, maxBytes: number): string {
  const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : Buffer.from(input);
  if (bytes.length <= maxBytes) return bytes.toString("utf8");
  let end = maxBytes;
  // Back up over continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}
