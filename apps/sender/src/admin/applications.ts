import type { AdminInput } from "@plant-store/admin-api";
import { type Application, isReservedApplication } from "@plant-store/store";
import type { FastifyRequest } from "fastify";
import { ApiError } from "../route-table.js";
import type { AdminContext, ResourceHandlers } from "./context.js";

/**
 * The routes tagged `applications` (the operator's only): create, list, get, change and delete an application, and
 * hand out or revoke its portal links.
 *
 * @example
 * ```ts
 * registerRoutes(app, { ...applicationHandlers(context), … });
 * ```
 */
export function applicationHandlers(context: AdminContext): ResourceHandlers<"applications"> {
  const { store } = context;
  const load = (params: { id: string }) => loadApplication(context, params);
  return {
    createApplication: {
      handle: async ({ body }) => applicationJson(await store.applications.create(body)),
    },
    listApplications: {
      handle: async () => ({
        data: (await store.applications.list()).map(applicationJson),
        nextCursor: null,
      }),
    },
    getApplication: { load, handle: async (_input, { loaded }) => applicationJson(loaded) },
    updateApplication: {
      load,
      handle: async ({ body }, { loaded }) =>
        applicationJson(await store.applications.update(loaded.id, body)),
    },
    deleteApplication: { load, handle: (_input, { loaded }) => deleteApplication(context, loaded) },
    createPortalLink: {
      load,
      handle: (input, { loaded, request }) => createPortalLink(context, input, loaded, request),
    },
    revokePortalLinks: {
      load,
      handle: async (_input, { loaded }) => {
        await store.applications.revokePortalTokens(loaded.id);
        context.logger?.info({ application: loaded.id }, "portal links revoked");
        return { id: loaded.id, revoked: true as const };
      },
    },
  };
}

async function loadApplication({ store }: AdminContext, { id }: { id: string }): Promise<Application> {
  const found = await store.applications.get(id);
  if (!found) throw new ApiError(404, `No application ${id}.`);
  return found;
}

async function deleteApplication({ store, logger }: AdminContext, application: Application) {
  if (isReservedApplication(application.id)) {
    throw new ApiError(
      409,
      "The default and operator applications cannot be deleted; delete their subscriptions instead.",
    );
  }
  const deleted = await store.applications.delete(application.id);
  // A delete racing this one finds nothing: the same 404 as an unknown id.
  if (!deleted) throw new ApiError(404, `No application ${application.id}.`);
  logger?.info(
    { application: deleted.id, uid: deleted.uid, subscriptions: deleted.subscriptions },
    "application deleted",
  );
  return { id: deleted.id, deleted: true as const, subscriptions: deleted.subscriptions };
}

async function createPortalLink(
  context: AdminContext,
  { body }: AdminInput<"createPortalLink">,
  application: Application,
  request: FastifyRequest,
) {
  const issued = await context.store.applications.createPortalToken(application.id, {
    ...(body.expiresInSeconds !== undefined && { ttlMs: body.expiresInSeconds * 1000 }),
  });
  // The token rides in the fragment: browsers never send it, so no server or proxy log sees it.
  const base = context.consoleUrl ?? `${request.protocol}://${request.headers.host ?? "127.0.0.1"}/console/`;
  return {
    url: `${base}#token=${issued.token}`,
    token: issued.token,
    expiresAt: issued.expiresAt.toISOString(),
  };
}

/**
 * An application as the API answers it.
 *
 * @example
 * ```ts
 * applicationJson(await store.applications.get("cust_42"));
 * ```
 */
export function applicationJson(a: Application) {
  return {
    id: a.id,
    uid: a.uid,
    name: a.name,
    metadata: a.metadata,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}
