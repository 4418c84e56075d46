// generated — do not edit. Source: spec/operational.yaml. Regenerate: pnpm --filter @plant-store/spec gen
/* biome-ignore-all lint: generated */

import type { Catalog } from "../catalog/types.js";

type paths = Record<string, never>;
interface webhooks {
    "/operational/subscription-disabled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Subscription disabled
         * @description A subscription stopped receiving events, with why.
         */
        post: operations["subscription.disabled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/operational/delivery-exhausted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delivery exhausted
         * @description A delivery failed for good (its retries ran out, or its target was refused); it waits for a resend.
         */
        post: operations["delivery.exhausted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/operational/application-deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Application deleted
         * @description An application was deleted with its subscriptions.
         */
        post: operations["application.deleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
interface components {
    schemas: {
        /**
         * Format: date-time
         * @description When the change happened (RFC 3339, UTC).
         */
        Timestamp: string;
        SubscriptionDisabled: {
            /** @constant */
            type: "subscription.disabled";
            timestamp: components["schemas"]["Timestamp"];
            data: {
                subscriptionId: string;
                applicationId: string;
                url: string;
                /**
                 * @description gone: the endpoint answered 410; failing: it failed too long (auto-disable); manual: by hand.
                 * @enum {string}
                 */
                reason: "gone" | "failing" | "manual";
                /** @description The reason the subscription shows. */
                detail: string;
            };
        };
        DeliveryExhausted: {
            /** @constant */
            type: "delivery.exhausted";
            timestamp: components["schemas"]["Timestamp"];
            data: {
                deliveryId: number;
                messageId: string;
                subscriptionId: string;
                /** @description The number of the attempt that ended it. */
                attempt: number;
                lastStatus: number | null;
                lastError: string | null;
            };
        };
        ApplicationDeleted: {
            /** @constant */
            type: "application.deleted";
            timestamp: components["schemas"]["Timestamp"];
            data: {
                applicationId: string;
                uid: string;
                name: string;
                /** @description Its subscriptions, deleted with it. */
                subscriptions: number;
            };
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
type $defs = Record<string, never>;
interface operations {
    "subscription.disabled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SubscriptionDisabled"];
            };
        };
        responses: {
            /** @description Received. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "delivery.exhausted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DeliveryExhausted"];
            };
        };
        responses: {
            /** @description Received. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "application.deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApplicationDeleted"];
            };
        };
        responses: {
            /** @description Received. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}

/** The sender's operational webhooks (spec/operational.yaml) as a catalog: what the operator can subscribe to. */
export const operationalCatalog = [
  {
    "type": "subscription.disabled",
    "name": "Subscription disabled",
    "path": "/operational/subscription-disabled",
    "method": "POST",
    "operationId": "subscription.disabled",
    "summary": "Subscription disabled",
    "description": "A subscription stopped receiving events, with why.",
    "schema": {
      "type": "object",
      "additionalProperties": false,
      "required": [
        "type",
        "timestamp",
        "data"
      ],
      "properties": {
        "type": {
          "const": "subscription.disabled"
        },
        "timestamp": {
          "type": "string",
          "format": "date-time",
          "description": "When the change happened (RFC 3339, UTC)."
        },
        "data": {
          "type": "object",
          "additionalProperties": false,
          "required": [
            "subscriptionId",
            "applicationId",
            "url",
            "reason",
            "detail"
          ],
          "properties": {
            "subscriptionId": {
              "type": "string"
            },
            "applicationId": {
              "type": "string"
            },
            "url": {
              "type": "string"
            },
            "reason": {
              "type": "string",
              "enum": [
                "gone",
                "failing",
                "manual"
              ],
              "description": "gone: the endpoint answered 410; failing: it failed too long (auto-disable); manual: by hand."
            },
            "detail": {
              "type": "string",
              "description": "The reason the subscription shows."
            }
          }
        }
      }
    },
    "examples": [
      {
        "name": "gone",
        "summary": "The endpoint answered 410 Gone",
        "value": {
          "type": "subscription.disabled",
          "timestamp": "2026-11-28T10:00:00.000Z",
          "data": {
            "subscriptionId": "sub_01JFIXTURE00000000000000A1",
            "applicationId": "app_default",
            "url": "https://receiver.example/plant/webhook",
            "reason": "gone",
            "detail": "410 Gone"
          }
        }
      }
    ],
    "responses": {
      "200": {
        "description": "Received."
      }
    }
  },
  {
    "type": "delivery.exhausted",
    "name": "Delivery exhausted",
    "path": "/operational/delivery-exhausted",
    "method": "POST",
    "operationId": "delivery.exhausted",
    "summary": "Delivery exhausted",
    "description": "A delivery failed for good (its retries ran out, or its target was refused); it waits for a resend.",
    "schema": {
      "type": "object",
      "additionalProperties": false,
      "required": [
        "type",
        "timestamp",
        "data"
      ],
      "properties": {
        "type": {
          "const": "delivery.exhausted"
        },
        "timestamp": {
          "type": "string",
          "format": "date-time",
          "description": "When the change happened (RFC 3339, UTC)."
        },
        "data": {
          "type": "object",
          "additionalProperties": false,
          "required": [
            "deliveryId",
            "messageId",
            "subscriptionId",
            "attempt",
            "lastStatus",
            "lastError"
          ],
          "properties": {
            "deliveryId": {
              "type": "integer"
            },
            "messageId": {
              "type": "string"
            },
            "subscriptionId": {
              "type": "string"
            },
            "attempt": {
              "type": "integer",
              "description": "The number of the attempt that ended it."
            },
            "lastStatus": {
              "type": [
                "integer",
                "null"
              ]
            },
            "lastError": {
              "type": [
                "string",
                "null"
              ]
            }
          }
        }
      }
    },
    "examples": [],
    "responses": {
      "200": {
        "description": "Received."
      }
    }
  },
  {
    "type": "application.deleted",
    "name": "Application deleted",
    "path": "/operational/application-deleted",
    "method": "POST",
    "operationId": "application.deleted",
    "summary": "Application deleted",
    "description": "An application was deleted with its subscriptions.",
    "schema": {
      "type": "object",
      "additionalProperties": false,
      "required": [
        "type",
        "timestamp",
        "data"
      ],
      "properties": {
        "type": {
          "const": "application.deleted"
        },
        "timestamp": {
          "type": "string",
          "format": "date-time",
          "description": "When the change happened (RFC 3339, UTC)."
        },
        "data": {
          "type": "object",
          "additionalProperties": false,
          "required": [
            "applicationId",
            "uid",
            "name",
            "subscriptions"
          ],
          "properties": {
            "applicationId": {
              "type": "string"
            },
            "uid": {
              "type": "string"
            },
            "name": {
              "type": "string"
            },
            "subscriptions": {
              "type": "integer",
              "description": "Its subscriptions, deleted with it."
            }
          }
        }
      }
    },
    "examples": [],
    "responses": {
      "200": {
        "description": "Received."
      }
    }
  }
] as const satisfies Catalog;

/** spec/operational.yaml as data. */
export const operationalDocument = {
  "openapi": "3.1.0",
  "info": {
    "title": "Plant Store sender operational webhooks",
    "version": "1.0.0",
    "license": {
      "name": "MIT",
      "identifier": "MIT"
    },
    "description": "The sender's own events, sent to the operator: a subscription disabled, a delivery that ran out of retries, an application deleted. They travel as New Plant does (Standard Webhooks headers, the subscription's bearer token and signature, `webhook-event-type` naming the event), to the subscriptions of the reserved `operator` application. Each is stored in the same transaction as the change it reports: both are committed, or neither."
  },
  "webhooks": {
    "/operational/subscription-disabled": {
      "post": {
        "summary": "Subscription disabled",
        "operationId": "subscription.disabled",
        "description": "A subscription stopped receiving events, with why.",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/SubscriptionDisabled"
              },
              "examples": {
                "gone": {
                  "summary": "The endpoint answered 410 Gone",
                  "value": {
                    "type": "subscription.disabled",
                    "timestamp": "2026-11-28T10:00:00.000Z",
                    "data": {
                      "subscriptionId": "sub_01JFIXTURE00000000000000A1",
                      "applicationId": "app_default",
                      "url": "https://receiver.example/plant/webhook",
                      "reason": "gone",
                      "detail": "410 Gone"
                    }
                  }
                }
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "Received."
          }
        }
      }
    },
    "/operational/delivery-exhausted": {
      "post": {
        "summary": "Delivery exhausted",
        "operationId": "delivery.exhausted",
        "description": "A delivery failed for good (its retries ran out, or its target was refused); it waits for a resend.",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/DeliveryExhausted"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "Received."
          }
        }
      }
    },
    "/operational/application-deleted": {
      "post": {
        "summary": "Application deleted",
        "operationId": "application.deleted",
        "description": "An application was deleted with its subscriptions.",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/ApplicationDeleted"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "Received."
          }
        }
      }
    }
  },
  "components": {
    "schemas": {
      "Timestamp": {
        "type": "string",
        "format": "date-time",
        "description": "When the change happened (RFC 3339, UTC)."
      },
      "SubscriptionDisabled": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "type",
          "timestamp",
          "data"
        ],
        "properties": {
          "type": {
            "const": "subscription.disabled"
          },
          "timestamp": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "data": {
            "type": "object",
            "additionalProperties": false,
            "required": [
              "subscriptionId",
              "applicationId",
              "url",
              "reason",
              "detail"
            ],
            "properties": {
              "subscriptionId": {
                "type": "string"
              },
              "applicationId": {
                "type": "string"
              },
              "url": {
                "type": "string"
              },
              "reason": {
                "type": "string",
                "enum": [
                  "gone",
                  "failing",
                  "manual"
                ],
                "description": "gone: the endpoint answered 410; failing: it failed too long (auto-disable); manual: by hand."
              },
              "detail": {
                "type": "string",
                "description": "The reason the subscription shows."
              }
            }
          }
        }
      },
      "DeliveryExhausted": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "type",
          "timestamp",
          "data"
        ],
        "properties": {
          "type": {
            "const": "delivery.exhausted"
          },
          "timestamp": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "data": {
            "type": "object",
            "additionalProperties": false,
            "required": [
              "deliveryId",
              "messageId",
              "subscriptionId",
              "attempt",
              "lastStatus",
              "lastError"
            ],
            "properties": {
              "deliveryId": {
                "type": "integer"
              },
              "messageId": {
                "type": "string"
              },
              "subscriptionId": {
                "type": "string"
              },
              "attempt": {
                "type": "integer",
                "description": "The number of the attempt that ended it."
              },
              "lastStatus": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "lastError": {
                "type": [
                  "string",
                  "null"
                ]
              }
            }
          }
        }
      },
      "ApplicationDeleted": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "type",
          "timestamp",
          "data"
        ],
        "properties": {
          "type": {
            "const": "application.deleted"
          },
          "timestamp": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "data": {
            "type": "object",
            "additionalProperties": false,
            "required": [
              "applicationId",
              "uid",
              "name",
              "subscriptions"
            ],
            "properties": {
              "applicationId": {
                "type": "string"
              },
              "uid": {
                "type": "string"
              },
              "name": {
                "type": "string"
              },
              "subscriptions": {
                "type": "integer",
                "description": "Its subscriptions, deleted with it."
              }
            }
          }
        }
      }
    }
  }
} as const;

/** An operational event type. */
export type OperationalEventType = (typeof operationalCatalog)[number]["type"];

/** Each operational event's payload. */
export interface OperationalPayloads {
  "subscription.disabled": components["schemas"]["SubscriptionDisabled"];
  "delivery.exhausted": components["schemas"]["DeliveryExhausted"];
  "application.deleted": components["schemas"]["ApplicationDeleted"];
}
