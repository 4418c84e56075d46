/**
 * Formats a path (as zod reports it) as an RFC 6901 JSON Pointer: `~` becomes `~0`, `/` becomes `~1`,
 * and the empty path is `""` (the whole document).
 *
 * @example
 * ```ts
 * toJsonPointer(["id"]); // "/id"
 * toJsonPointer(["a/b", "m~n", 0]); // "/a~1b/m~0n/0"
 * toJsonPointer([]); // ""
 * ```
 */
export function toJsonPointer(path: readonly PropertyKey[]): string {
  let pointer = "";
  for (const segment of path) {
    // `~` first: escaping `/` first would turn its `~1` into `~01`.
    pointer += `/${String(segment).replaceAll("~", "~0").replaceAll("/", "~1")}`;
  }
  return pointer;
}
