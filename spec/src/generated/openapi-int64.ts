// generated — do not edit. Source: spec/openapi.yaml. Regenerate: pnpm --filter @plant-store/spec gen
/* biome-ignore-all lint: generated */
// int64 as bigint

export type paths = Record<string, never>;
export interface webhooks {
    "/plant/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * New Plant
         * @description Information about a new plant added to the store
         */
        post: operations["newPlant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        Plant: {
            /** @description Name of the plant. */
            name: string;
            /** @description Tag to specify the type. */
            tag?: string;
        };
        NewPlant: components["schemas"]["Plant"] & {
            /**
             * Format: int64
             * @description Identification number of the plant.
             */
            id: bigint;
        };
        Error: {
            /** Format: int32 */
            error: number;
            message: string;
        };
    };
    responses: never;
    parameters: {
        /**
         * @description Standard Webhooks message id, unique per event and the same across retries; receivers deduplicate on it. 1 to 256 visible ASCII characters (no spaces or control characters; dots allowed, as in the Standard Webhooks reference implementation).
         * @example msg_2zQz0kUQ6yk3n8aJ5xY2c1
         */
        WebhookId: string;
        /**
         * @description Unix time in seconds at which this attempt was signed.
         * @example 1614265330
         */
        WebhookTimestamp: string;
        /**
         * @description Space-separated list of `v1,<base64>` signatures: HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}` keyed with the base64-decoded part of a `whsec_` secret. Several appear while a secret is rotated.
         * @example v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=
         */
        WebhookSignature: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    newPlant: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Standard Webhooks message id, unique per event and the same across retries; receivers deduplicate on it. 1 to 256 visible ASCII characters (no spaces or control characters; dots allowed, as in the Standard Webhooks reference implementation).
                 * @example msg_2zQz0kUQ6yk3n8aJ5xY2c1
                 */
                "webhook-id"?: components["parameters"]["WebhookId"];
                /**
                 * @description Unix time in seconds at which this attempt was signed.
                 * @example 1614265330
                 */
                "webhook-timestamp"?: components["parameters"]["WebhookTimestamp"];
                /**
                 * @description Space-separated list of `v1,<base64>` signatures: HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}` keyed with the base64-decoded part of a `whsec_` secret. Several appear while a secret is rotated.
                 * @example v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=
                 */
                "webhook-signature"?: components["parameters"]["WebhookSignature"];
            };
            path?: never;
            cookie?: never;
        };
        /** @description The plant that was added to the store. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewPlant"];
            };
        };
        responses: {
            /** @description Received. The event is stored (or was already stored under the same `webhook-id`). */
            200: {
                headers: {
                    /** @description `true` when an event with this `webhook-id` was already stored: this delivery had no second effect. Absent otherwise. */
                    "webhook-duplicate"?: "true";
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed JSON (or a body that is not UTF-8), a malformed `Authorization` header (not exactly one token after `Bearer`, or two `Authorization` headers), or malformed Standard Webhooks headers. */
            400: {
                headers: {
                    /** @description With a malformed `Authorization` header: `Bearer realm="plant-store", error="invalid_request"` (RFC 6750 §3.1). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "The body is not valid JSON: Unexpected end of JSON input. Send the plant as a JSON object."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (with a `WWW-Authenticate` challenge), or an invalid signature or a timestamp outside the tolerance window. */
            401: {
                headers: {
                    /** @description `Bearer realm="plant-store"`, with `error="invalid_token"` when the presented token was refused (not when the token was accepted and the signature or timestamp was not). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "Missing bearer token. Send 'Authorization: Bearer <ACCESS_TOKEN>'."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown path. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Method not allowed; only `POST` is. */
            405: {
                headers: {
                    /** @description Always `POST`. */
                    Allow?: "POST";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request did not arrive in time (its headers or body came too slowly); the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than the receiver's cap. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not `application/json` (UTF-8), or it is compressed (`Content-Encoding`). */
            415: {
                headers: {
                    /** @description `identity`, when the body came with a `Content-Encoding`: send the signed bytes as they are. */
                    "Accept-Encoding"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The JSON does not match `NewPlant`; the message names the JSON pointer of each problem. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 422,
                     *       "message": "/name: Required. Send a string name for the plant."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request headers are too large; the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The receiver could not store the event right now; the sender retries later. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
