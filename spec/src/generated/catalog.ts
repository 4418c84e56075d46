// generated — do not edit. Source: spec/openapi.yaml. Regenerate: pnpm --filter @plant-store/spec gen

import type { BodyOf, Catalog } from "../catalog/types.js";
import type { webhooks as Int64Webhooks } from "./openapi-int64.js";
import type { webhooks } from "./openapi.js";

/** Every webhook of spec/openapi.yaml: type, path, method, JSON Schema (refs resolved), examples, responses. */
export const catalog = [
  {
    "type": "newPlant",
    "name": "New Plant",
    "path": "/plant/webhook",
    "method": "POST",
    "operationId": "newPlant",
    "summary": "New Plant",
    "description": "Information about a new plant added to the store",
    "schema": {
      "allOf": [
        {
          "type": "object",
          "required": [
            "name"
          ],
          "properties": {
            "name": {
              "description": "Name of the plant.",
              "type": "string"
            },
            "tag": {
              "description": "Tag to specify the type.",
              "type": "string"
            }
          }
        },
        {
          "type": "object",
          "required": [
            "id"
          ],
          "properties": {
            "id": {
              "description": "Identification number of the plant.",
              "type": "integer",
              "format": "int64"
            }
          }
        }
      ]
    },
    "examples": [
      {
        "name": "basic",
        "summary": "A plant with a tag",
        "value": {
          "id": 1,
          "name": "Monstera deliciosa",
          "tag": "tropical"
        }
      },
      {
        "name": "untagged",
        "summary": "A plant without a tag",
        "value": {
          "id": 42,
          "name": "Ficus lyrata"
        }
      }
    ],
    "responses": {
      "200": {
        "description": "Received. The event is stored (or was already stored under the same `webhook-id`)."
      },
      "400": {
        "description": "Malformed JSON (or a body that is not UTF-8), a malformed `Authorization` header (not exactly one token after `Bearer`, or two `Authorization` headers), or malformed Standard Webhooks headers.",
        "schema": {
          "type": "object",
          "required": [
            "error",
            "message"
          ],
          "properties": {
            "error": {
              "type": "integer",
              "format": "int32"
            },
            "message": {
              "type": "string"
            }
          }
        }
      },
      "401": {
        "description": "Missing or invalid bearer token (with a `WWW-Authenticate` challenge), or an invalid signature or a timestamp outside the tolerance window.",
        "schema": {
          "type": "object",
          "required": [
            "error",
            "message"
          ],
          "properties": {
            "error": {
              "type": "integer",
              "format": "int32"
            },
            "message": {
              "type": "string"
            }
          }
        }
      },
      "404": {
        "description": "Unknown path.",
        "schema": {
          "type": "object",
          "required": [
            "error",
            "message"
          ],
          "properties": {
            "error": {
              "type": "integer",
              "format": "int32"
            },
            "message": {
              "type": "string"
            }
          }
        }
      },
      "405": {
        "description": "Method not allowed; only `POST` is.",
        "schema": {
          "type": "object",
          "required": [
            "error",
            "message"
          ],
          "properties": {
            "error": {
              "type": "integer",
              "format": "int32"
            },
            "message": {
              "type": "string"
            }
          }
        }
      },
      "408": {
        "description": "The request did not arrive in time (its headers or body came too slowly); the connection is closed.",
        "schema": {
          "type": "object",
          "required": [
            "error",
            "message"
          ],
          "properties": {
            "error": {
              "type": "integer",
              "format": "int32"
            },
            "message": {
              "type": "string"
            }
          }
        }
      },
      "413": {
        "description": "The body is larger than the receiver's cap.",
        "schema": {
          "type": "object",
          "required": [
            "error",
            "message"
          ],
          "properties": {
            "error": {
              "type": "integer",
              "format": "int32"
            },
            "message": {
              "type": "string"
            }
          }
        }
      },
      "415": {
        "description": "The body is not `application/json` (UTF-8), or it is compressed (`Content-Encoding`).",
        "schema": {
          "type": "object",
          "required": [
            "error",
            "message"
          ],
          "properties": {
            "error": {
              "type": "integer",
              "format": "int32"
            },
            "message": {
              "type": "string"
            }
          }
        }
      },
      "422": {
        "description": "The JSON does not match `NewPlant`; the message names the JSON pointer of each problem.",
        "schema": {
          "type": "object",
          "required": [
            "error",
            "message"
          ],
          "properties": {
            "error": {
              "type": "integer",
              "format": "int32"
            },
            "message": {
              "type": "string"
            }
          }
        }
      },
      "431": {
        "description": "The request headers are too large; the connection is closed.",
        "schema": {
          "type": "object",
          "required": [
            "error",
            "message"
          ],
          "properties": {
            "error": {
              "type": "integer",
              "format": "int32"
            },
            "message": {
              "type": "string"
            }
          }
        }
      },
      "503": {
        "description": "The receiver could not store the event right now; the sender retries later.",
        "schema": {
          "type": "object",
          "required": [
            "error",
            "message"
          ],
          "properties": {
            "error": {
              "type": "integer",
              "format": "int32"
            },
            "message": {
              "type": "string"
            }
          }
        }
      }
    }
  }
] as const satisfies Catalog;

/** The event types of the catalog (each webhook's operationId). */
export type EventType = (typeof catalog)[number]["type"];

/** Each event type's payload, int64 as `bigint` (core's default, lossless mode). */
export interface EventPayloads {
  "newPlant": BodyOf<NonNullable<Int64Webhooks["/plant/webhook"]["post"]>>;
}

/** Each event type's payload, int64 as `number` (core's `mode: "safe"`). */
export interface SafeEventPayloads {
  "newPlant": BodyOf<NonNullable<webhooks["/plant/webhook"]["post"]>>;
}
