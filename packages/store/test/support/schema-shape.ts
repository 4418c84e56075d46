import type { TestBackend } from "./backends.js";

/**
 * A backend-neutral description of the live schema (tables, columns, indexes, triggers), so a
 * migrated database can be compared with a freshly created one.
 */
export async function schemaShape(backend: TestBackend): Promise<unknown> {
  if (backend.kind === "sqlite") {
    const objects = await backend.sql(
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
    );
    const shape: Record<string, unknown> = {};
    for (const o of objects) {
      if (o.type === "table") {
        shape[`table ${o.name}`] = await backend.sql(
          `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info('${o.name}')`,
        );
      } else {
        // Index and trigger definitions, whitespace and comments aside.
        shape[`${o.type} ${o.name}`] = String(o.sql)
          .replace(/--[^\n]*/g, "")
          .replace(/\s+/g, " ")
          .trim();
      }
    }
    return shape;
  }
  const columns = await backend.sql(
    `SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity
     FROM information_schema.columns WHERE table_schema = {schema} ORDER BY table_name, ordinal_position`,
  );
  const indexes = await backend.sql(
    "SELECT indexname, regexp_replace(indexdef, ' ON \\S+\\.', ' ON ') AS def FROM pg_indexes WHERE schemaname = {schema} ORDER BY indexname",
  );
  const triggers = await backend.sql(
    `SELECT trigger_name, event_manipulation, action_timing, action_orientation
     FROM information_schema.triggers WHERE trigger_schema = {schema} ORDER BY trigger_name, event_manipulation`,
  );
  return { columns, indexes, triggers };
}
