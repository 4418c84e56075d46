import { document as spec } from "@plant-store/spec";
import { z } from "zod";
import { type AdminRoute, adminRoutes, type RouteTable } from "./routes.js";
import * as s from "./schemas.js";

type JsonObject = Record<string, unknown>;

const ERROR_REF = { $ref: "#/components/schemas/Error" };
const errorAnswer = (description: string) => ({
  description,
  content: { "application/json": { schema: ERROR_REF } },
});

/**
 * The answers every operation can give besides its own, so the document lists what the API really returns: on every
 * one 408 (a request that arrives too slowly) and 431 (headers too large); on each authenticated one 400 (malformed
 * `Authorization`), 401 and 503 (store unavailable); on each that takes a body (POST, PATCH) 400 (not JSON), 413
 * (over the body limit) and 415 (not `application/json`), also where it expects none and one is sent; on each with a
 * path parameter 414 (a segment over 100 characters).
 */
function commonStatuses(route: AdminRoute, portals: boolean): Record<string, string> {
  return {
    "408": "The request arrived too slowly.",
    "431": "The request's headers are too large.",
    ...(route.auth !== false && {
      "400": "The request is malformed; the message says what to change.",
      "401": portals
        ? "No bearer token, or one not accepted (unknown, expired or revoked)."
        : "No admin bearer token, or one not accepted.",
      "503": "The store is not available right now. Retry later.",
    }),
    ...((route.method === "POST" || route.method === "PATCH") && {
      "400": "The request is malformed; the message says what to change.",
      "413": "The body is larger than the limit.",
      "415": "The body is not `application/json`.",
    }),
    ...(route.path.includes("{") && { "414": "A path segment is longer than 100 characters." }),
    ...(portals &&
      route.portal !== true && {
        "403": "A portal token cannot reach this operation: it needs the operator's token.",
      }),
  };
}

/**
 * The sender's admin API as an OpenAPI 3.1 document, generated from {@link adminRoutes} with zod's
 * `z.toJSONSchema`; the New Plant body and payload are `@plant-store/spec`'s own schemas. The sender serves it at
 * `GET /openapi.json` and commits it as `apps/sender/openapi.json` (a test fails when that file is stale).
 *
 * @example
 * ```ts
 * import { buildAdminOpenApi } from "@plant-store/admin-api";
 * const doc = buildAdminOpenApi();
 * Object.keys(doc.paths); // ["/subscriptions", "/subscriptions/{id}", …]
 * ```
 */
export function buildAdminOpenApi(): JsonObject {
  return buildRouteOpenApi(adminRoutes, {
    info: {
      title: "Plant Store sender admin API",
      description:
        "Manage the subscribers of the New Plant webhook, publish events and inspect deliveries. Every error is `{ error, message }`. A method an operation does not list, on a path it does, answers 405 with an `Allow` header naming the methods that path takes. Generated from the zod schemas of `@plant-store/admin-api`.",
    },
    server: "http://127.0.0.1:4001",
    portals: true,
    tokenDescription:
      "The operator's admin token, or a portal token (`pst_…`, from a portal link) for the operations of one application.",
    tags: [
      {
        name: "applications",
        description: "Customers: each owns its subscriptions, and a portal link lets it manage them alone.",
      },
      { name: "subscriptions", description: "Where New Plant webhooks are delivered." },
      { name: "events", description: "Publishing New Plant events." },
      { name: "deliveries", description: "One message to one subscription, and its attempts." },
      { name: "operations", description: "Health and metrics (no token)." },
    ],
  });
}

/** What a document says about itself besides its routes. */
export interface DocumentHead {
  info: { title: string; description: string };
  server: string;
  tags: { name: string; description: string }[];
  /** Whether portal tokens reach some operations (the sender's): the others then answer them 403. */
  portals?: boolean;
  /** What the bearer token of `securitySchemes.adminToken` is, when more than the admin token. */
  tokenDescription?: string;
}

/**
 * The admin API that `routes` describes, as an OpenAPI 3.1 document: {@link buildAdminOpenApi} for the sender's,
 * `buildReceiverOpenApi` for the receiver's.
 *
 * @example
 * ```ts
 * const doc = buildRouteOpenApi(receiverRoutes, { info: { title, description }, server, tags });
 * ```
 */
export function buildRouteOpenApi(routes: RouteTable, head: DocumentHead): JsonObject {
  const { convert, components } = createConverter();
  convert(s.ErrorBody, "output");
  // The event bodies come from the spec, as it defines them (its refs point at its own component names).
  const specSchemas = (spec.components as { schemas: Record<string, JsonObject> }).schemas;
  components.Plant = specSchemas.Plant as JsonObject;
  components.NewPlant = specSchemas.NewPlant as JsonObject;

  const paths: Record<string, Record<string, unknown>> = {};
  for (const [operationId, route] of Object.entries(routes)) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = operationOf(
      operationId,
      route,
      convert,
      head.portals === true,
    );
  }
  return {
    openapi: "3.1.0",
    info: {
      title: head.info.title,
      version: "1.0.0",
      license: { name: "MIT", identifier: "MIT" },
      description: head.info.description,
    },
    servers: [{ url: head.server }],
    security: [{ adminToken: [] }],
    tags: head.tags,
    paths,
    components: {
      securitySchemes: {
        adminToken: {
          type: "http",
          scheme: "bearer",
          ...(head.tokenDescription && { description: head.tokenDescription }),
        },
      },
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}

/** Converts a zod schema to JSON Schema; the definitions it meets are gathered once. */
type Convert = (schema: z.ZodType, io: "input" | "output") => JsonObject;

/** A converter whose schemas with a `.meta({ id })` become components, referenced wherever they appear. */
function createConverter(): { convert: Convert; components: Record<string, JsonObject> } {
  const override = (ctx: { zodSchema: unknown; jsonSchema: JsonObject }) => {
    const replacement = s.jsonSchemaOverrides.get(ctx.zodSchema as z.ZodType);
    if (!replacement) return;
    for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
    Object.assign(ctx.jsonSchema, replacement);
  };
  const components: Record<string, JsonObject> = {};
  const convert: Convert = (schema, io) => {
    const json = z.toJSONSchema(schema, { io, target: "draft-2020-12", override, unrepresentable: "any" });
    const {
      $schema: _,
      $defs,
      ...rest
    } = JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonObject & {
      $defs?: Record<string, JsonObject>;
    };
    for (const [name, def] of Object.entries($defs ?? {})) components[name] ??= def;
    return rest;
  };
  return { convert, components };
}

/** One route as an OpenAPI operation. */
function operationOf(operationId: string, route: AdminRoute, convert: Convert, portals: boolean): JsonObject {
  const parameters = [
    ...objectParameters(route.params, "path", convert),
    ...objectParameters(route.query, "query", convert),
    ...objectParameters(route.headers, "header", convert),
  ];
  // Converted before the body, as components keep the first definition met under a name.
  const responses = responsesOf(route, convert, portals);
  return {
    tags: [route.tag],
    operationId,
    summary: route.summary,
    ...(route.description && { description: route.description }),
    ...(route.auth === false && { security: [] }),
    ...(parameters.length > 0 && { parameters }),
    ...(route.body && {
      requestBody: {
        required: route.body.required,
        ...(route.body.description && { description: route.body.description }),
        content: { "application/json": { schema: convert(route.body.schema, "input") } },
      },
    }),
    responses,
  };
}

/** The route's success answer, the common error answers and its own, ordered by status. */
function responsesOf(route: AdminRoute, convert: Convert, portals: boolean): JsonObject {
  const responses: Record<string, unknown> = {
    [route.ok.status]: {
      description: route.ok.description,
      content: {
        [route.ok.contentType ?? "application/json"]: { schema: convert(route.ok.schema, "output") },
      },
    },
  };
  for (const [status, description] of Object.entries(commonStatuses(route, portals))) {
    responses[status] = errorAnswer(description);
  }
  for (const [status, description] of Object.entries(route.errors ?? {})) {
    responses[status] = errorAnswer(description as string);
  }
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/** An object schema's fields as OpenAPI parameters. */
function objectParameters(
  schema: z.ZodObject | undefined,
  where: "path" | "query" | "header",
  convert: Convert,
): JsonObject[] {
  if (!schema) return [];
  const json = convert(schema, "input") as { properties?: Record<string, JsonObject>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name: where === "header" ? headerName(name) : name,
      in: where,
      required: where === "path" || (json.required ?? []).includes(name),
      ...(typeof description === "string" && { description }),
      schema: rest,
    };
  });
}

/** `idempotency-key` → `Idempotency-Key`, as the header is documented. */
function headerName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
}
