import type { AdminInput } from "@plant-store/admin-api";
import { signingKeyProblem } from "@plant-store/app-kit";
import {
  createSecret,
  createToken,
  DEFAULT_DISABLE_REASON,
  parseDateTime,
  type SigningScheme,
} from "@plant-store/core";
import { operationalCatalog, unknownEventMessage } from "@plant-store/spec";
import { activeSecrets, OPERATOR_APPLICATION_ID, type Subscription } from "@plant-store/store";
import type { FastifyRequest } from "fastify";
import { ApiError } from "../route-table.js";
import { resolveTarget } from "../ssrf.js";
import { type AdminContext, type ResourceHandlers, requestView } from "./context.js";
import { isKnownType } from "./events.js";
import { iso } from "./iso.js";

/**
 * The routes tagged `subscriptions`: create, list, get, change, delete, disable, enable, rotate a credential and
 * recover failed deliveries.
 *
 * @example
 * ```ts
 * registerRoutes(app, { ...subscriptionHandlers(context), … });
 * ```
 */
export function subscriptionHandlers(context: AdminContext): ResourceHandlers<"subscriptions"> {
  const { store } = context;
  const load = (params: { id: string }, request: FastifyRequest) =>
    loadSubscription(context, params, request);
  return {
    createSubscription: { handle: (input, { request }) => createSubscription(context, input, request) },
    listSubscriptions: { handle: (input, { request }) => listSubscriptions(context, input, request) },
    getSubscription: { load, handle: async (_input, { loaded }) => subscriptionJson(loaded) },
    updateSubscription: { load, handle: (input, { loaded }) => updateSubscription(context, input, loaded) },
    deleteSubscription: { load, handle: (input) => deleteSubscription(context, input) },
    disableSubscription: {
      load,
      // The store publishes `subscription.disabled` (by hand) in the disable's transaction.
      handle: async ({ params, body }) =>
        subscriptionJson(await store.subscriptions.disable(params.id, body.reason ?? DEFAULT_DISABLE_REASON)),
    },
    enableSubscription: {
      load,
      handle: async ({ params }) => subscriptionJson(await store.subscriptions.enable(params.id)),
    },
    rotateCredential: { load, handle: (input) => rotateCredential(context, input) },
    recoverSubscription: {
      load,
      handle: async ({ params, body }) => ({
        requeued: await store.outbox.recover(params.id, parseDateTime(body.since) as number),
      }),
    },
  };
}

/** Found through the request's view: another application's subscription is not found, as an unknown one. */
async function loadSubscription(
  context: AdminContext,
  { id }: { id: string },
  request: FastifyRequest,
): Promise<Subscription> {
  const found = await requestView(context, request).getSubscription(id);
  if (!found) throw new ApiError(404, `No subscription ${id}.`);
  return found;
}

/**
 * The application a request names (`application`, by id or uid): for a portal, its own (naming another is as
 * naming none that exists); for the operator, the one named, or `undefined` for the default.
 */
async function namedApplication(
  context: AdminContext,
  request: FastifyRequest,
  named: string | undefined,
): Promise<string | undefined> {
  const own = requestView(context, request).applicationId;
  if (named === undefined) return own ?? undefined;
  const found = await context.store.applications.get(named);
  if (!found || (own !== null && found.id !== own)) throw new ApiError(404, `No application ${named}.`);
  return found.id;
}

async function createSubscription(
  context: AdminContext,
  { body }: AdminInput<"createSubscription">,
  request: FastifyRequest,
) {
  const applicationId = await namedApplication(context, request, body.application);
  const url = await checkUrl(context, body.url);
  const token = body.token ?? createToken();
  const secret = body.secret ?? createSecret();
  const eventTypes = knownTypes(context, body.eventTypes, applicationId, true);
  const signing = signingScheme(context, body.signing);
  const created = await context.store.subscriptions.create({
    ...(applicationId !== undefined && { applicationId }),
    ...(body.uid !== undefined && { uid: body.uid }),
    ...(body.description !== undefined && { description: body.description }),
    ...(body.metadata !== undefined && { metadata: body.metadata }),
    ...(body.rateLimit !== undefined && { rateLimit: body.rateLimit }),
    ...(body.headers !== undefined && { headers: body.headers }),
    url,
    token,
    secrets: [secret],
    ...(eventTypes !== undefined && { eventTypes }),
    ...(signing !== undefined && { signing }),
  });
  return { ...subscriptionJson(created), token, secret };
}

async function listSubscriptions(
  context: AdminContext,
  { query }: AdminInput<"listSubscriptions">,
  request: FastifyRequest,
) {
  const options = query.enabled === undefined ? {} : { enabled: query.enabled === "true" };
  const applicationId = await namedApplication(context, request, query.application);
  const all =
    applicationId === undefined
      ? await requestView(context, request).listSubscriptions(options)
      : await context.store.applications.reads(applicationId).listSubscriptions(options);
  return { data: all.map(subscriptionJson), nextCursor: null };
}

async function updateSubscription(
  context: AdminContext,
  { params, body }: AdminInput<"updateSubscription">,
  subscription: Subscription,
) {
  const eventTypes = knownTypes(context, body.eventTypes, subscription.applicationId, false);
  const signing = signingScheme(context, body.signing);
  return subscriptionJson(
    await context.store.subscriptions.update(params.id, {
      ...(body.url !== undefined && { url: await checkUrl(context, body.url) }),
      ...(eventTypes !== undefined && { eventTypes }),
      ...(signing !== undefined && { signing }),
      ...(body.uid !== undefined && { uid: body.uid }),
      ...(body.description !== undefined && { description: body.description }),
      ...(body.metadata !== undefined && { metadata: body.metadata }),
      ...(body.rateLimit !== undefined && { rateLimit: body.rateLimit }),
      ...(body.headers !== undefined && { headers: body.headers }),
    }),
  );
}

async function deleteSubscription({ store }: AdminContext, { params }: AdminInput<"deleteSubscription">) {
  // A delete racing this one finds nothing: the same 404 as an unknown id.
  if (!(await store.subscriptions.delete(params.id)))
    throw new ApiError(404, `No subscription ${params.id}.`);
  return { id: params.id, deleted: true as const };
}

async function rotateCredential({ store }: AdminContext, { params, body }: AdminInput<"rotateCredential">) {
  if (body.kind === "token") {
    const token = body.value ?? createToken();
    await store.subscriptions.update(params.id, { token });
    return { token };
  }
  const secret = body.value ?? createSecret();
  await store.subscriptions.rotateSecret(params.id, secret, { graceMs: body.graceSeconds * 1000 });
  return { secret };
}

async function checkUrl({ allow, resolve }: AdminContext, url: string): Promise<string> {
  const verdict = await resolveTarget(new URL(url), allow, resolve);
  if (!verdict.ok) throw new ApiError(400, `The URL is refused: ${verdict.reason}`);
  return url;
}

/**
 * Event types a subscription names must be webhooks of the catalog: a typo would silently receive nothing. The
 * operator's application takes the operational webhooks instead, and must name them (so New Plant never reaches it).
 */
function knownTypes(
  context: AdminContext,
  types: readonly string[] | null | undefined,
  applicationId: string | undefined,
  creating: boolean,
): readonly string[] | null | undefined {
  const operational = applicationId === OPERATOR_APPLICATION_ID;
  const catalog = operational ? operationalCatalog : context.catalog;
  if (operational && (types === null || (creating && types === undefined))) {
    throw new ApiError(
      400,
      `eventTypes: the operator application's subscriptions name the operational webhooks they take (${operationalCatalog.map((e) => e.type).join(", ")}).`,
    );
  }
  const unknown = types?.find((type) => !isKnownType(catalog, type));
  if (unknown !== undefined) throw new ApiError(400, `eventTypes: ${unknownEventMessage(catalog, unknown)}`);
  return types;
}

function signingScheme(
  { canSignAsymmetric }: AdminContext,
  signing: SigningScheme | undefined,
): SigningScheme | undefined {
  const problem = signingKeyProblem(signing, canSignAsymmetric, "--private-key");
  if (problem !== null) throw new ApiError(400, problem);
  return signing;
}

function subscriptionJson(s: Subscription) {
  return {
    id: s.id,
    applicationId: s.applicationId,
    uid: s.uid,
    description: s.description,
    metadata: s.metadata,
    url: s.url,
    enabled: s.enabled,
    disabledReason: s.disabledReason,
    disabledAt: iso(s.disabledAt),
    failingSince: iso(s.failingSince),
    signingSecrets: activeSecrets(s).length,
    eventTypes: s.eventTypes,
    signing: s.signing,
    rateLimit: s.rateLimit,
    headerNames: Object.keys(s.headers),
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
