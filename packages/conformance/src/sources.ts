import type { Source } from "./types.js";

const SW = "https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md";

/** The documents the checks cite, by the section each rule comes from. */
export const SOURCES = {
  swSignatureScheme: {
    document: "Standard Webhooks 1.0.0",
    section: "Signature scheme",
    url: `${SW}#signature-scheme`,
  },
  swHeaders: {
    document: "Standard Webhooks 1.0.0",
    section: "Webhook headers",
    url: `${SW}#webhook-headers-sending-metadata-to-consumers`,
  },
  swVerifying: {
    document: "Standard Webhooks 1.0.0",
    section: "Verifying signatures",
    url: `${SW}#verifying-signatures`,
  },
  swMetadata: {
    document: "Standard Webhooks 1.0.0",
    section: "Webhook metadata",
    url: `${SW}#webhook-metadata`,
  },
  swReliability: {
    document: "Standard Webhooks 1.0.0",
    section: "Deliverability and reliability",
    url: `${SW}#deliverability-and-reliability`,
  },
  swSuccess: {
    document: "Standard Webhooks 1.0.0",
    section: "Delivery success and failure",
    url: `${SW}#delivery-success-and-failure`,
  },
  swTimeouts: {
    document: "Standard Webhooks 1.0.0",
    section: "Request timeouts",
    url: `${SW}#request-timeouts`,
  },
  rfc6750Challenge: {
    document: "RFC 6750",
    section: "§3 The WWW-Authenticate Response Header Field",
    url: "https://www.rfc-editor.org/rfc/rfc6750#section-3",
  },
  rfc6750Errors: {
    document: "RFC 6750",
    section: "§3.1 Error Codes",
    url: "https://www.rfc-editor.org/rfc/rfc6750#section-3.1",
  },
  rfc6750Header: {
    document: "RFC 6750",
    section: "§2.1 Authorization Request Header Field",
    url: "https://www.rfc-editor.org/rfc/rfc6750#section-2.1",
  },
  rfc9110Scheme: {
    document: "RFC 9110",
    section: "§11.1 Authentication Scheme (case-insensitive)",
    url: "https://www.rfc-editor.org/rfc/rfc9110#section-11.1",
  },
  rfc9110Status: {
    document: "RFC 9110",
    section: "§15.5 Client Error 4xx",
    url: "https://www.rfc-editor.org/rfc/rfc9110#section-15.5",
  },
  specPayload: {
    document: "OpenAPI Plant Store 1.0.0",
    section: "webhooks: request body schema",
    url: "https://github.com/plant-store/plant-store/blob/main/spec/openapi.yaml",
  },
  specResponses: {
    document: "OpenAPI Plant Store 1.0.0",
    section: "webhooks: responses",
    url: "https://github.com/plant-store/plant-store/blob/main/spec/openapi.yaml",
  },
  specSecurity: {
    document: "OpenAPI Plant Store 1.0.0",
    section: "security: bearerAuth",
    url: "https://github.com/plant-store/plant-store/blob/main/spec/openapi.yaml",
  },
} as const satisfies Record<string, Source>;

/** Where each check's page lives; a report links it. */
export const DOCS_BASE = "https://github.com/plant-store/plant-store/blob/main/docs/conformance";

/** The documentation page of a check id. */
export function docsUrl(id: string): string {
  return `${DOCS_BASE}/${id}.md`;
}
