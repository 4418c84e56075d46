/** Whether an id is named by a list of ids or prefixes (`signature.` names every signature check). */
export function named(id: string, list: readonly string[]): boolean {
  return list.some((entry) => entry === id || (entry.endsWith(".") && id.startsWith(entry)));
}

/** Why a check does not run in this selection, or `undefined` when it runs. */
export function deselected(
  check: { id: string; group?: string | undefined },
  only: readonly string[] | undefined,
  skip: readonly string[] | undefined,
  include: readonly string[] | undefined,
): string | undefined {
  if (only && only.length > 0 && !named(check.id, only)) return "not selected (--only)";
  if (skip && named(check.id, skip)) return "skipped (--skip)";
  if (check.group && !(include ?? []).includes(check.group) && !(only ?? []).includes(check.id)) {
    return `opt-in: add --include ${check.group} to run it`;
  }
  return undefined;
}

/** Every id of a list that names no check: a typo should not silently select nothing. */
export function unknownIds(list: readonly string[] | undefined, ids: readonly string[]): string[] {
  return (list ?? []).filter((entry) => !ids.some((id) => named(id, [entry])));
}
