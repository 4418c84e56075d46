/**
 * 1 when `presented` is `expected`, else 0, in a time that depends on `expected`'s length only: every character
 * of `expected` is compared, whatever `presented` holds (a secret is never compared with `===`, which stops at the
 * first difference). A character beyond `presented`'s end reads as NaN, which `^` takes as 0; the lengths are
 * compared too.
 *
 * @example
 * ```ts
 * sameText("psk_abc", "psk_abc"); // 1
 * ```
 */
export function sameText(presented: string, expected: string): number {
  let difference = presented.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) {
    difference |= presented.charCodeAt(i) ^ expected.charCodeAt(i);
  }
  return difference === 0 ? 1 : 0;
}
