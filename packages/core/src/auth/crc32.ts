// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum GitHub-style tokens carry.
const TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/**
 * CRC-32 of `bytes` as an unsigned 32-bit integer.
 *
 * @example
 * ```ts
 * crc32(utf8Encode("123456789")); // 0xcbf43926
 * ```
 */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (TABLE[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
