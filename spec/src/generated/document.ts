// generated — do not edit. Source: spec/openapi.yaml. Regenerate: pnpm --filter @plant-store/spec gen

/** The OpenAPI Plant Store document (spec/openapi.yaml) as data. */
export const document = {
  "openapi": "3.1.0",
  "info": {
    "title": "OpenAPI Plant Store",
    "version": "1.0.0",
    "summary": "The New Plant webhook of the Plant Store.",
    "description": "An example service that demonstrates interface-description features: it declares no paths and\none webhook, \"New Plant\", which the Plant Store sends to subscribers each time a plant is added\nto the store.\n\nDeliveries are HTTP `POST` requests authenticated with a bearer token (`bearerAuth`). On top of\nthe token, the toolkit signs every delivery following Standard Webhooks: the `webhook-id`,\n`webhook-timestamp` and `webhook-signature` headers, where the signature is\n`v1,<base64 HMAC-SHA256 of \"{id}.{timestamp}.{body}\">` keyed with a `whsec_` secret. Receivers\nthat do not verify signatures may ignore these headers.\n\nA receiver answers `200` only once the event is stored. Any other status is retried by the\nsender (except `410 Gone`, which disables the subscription). Duplicate deliveries carry the same\n`webhook-id` and are answered `200` without a second effect.\n",
    "license": {
      "name": "MIT",
      "identifier": "MIT"
    },
    "contact": {
      "name": "Plant Store toolkit",
      "url": "https://github.com/plant-store/plant-store"
    }
  },
  "servers": [
    {
      "url": "{base_url}",
      "description": "Where the receiver of the webhook listens.",
      "variables": {
        "base_url": {
          "default": "http://localhost:4000",
          "description": "Base URL of the webhook receiver."
        }
      }
    }
  ],
  "security": [
    {
      "bearerAuth": []
    }
  ],
  "tags": [
    {
      "name": "plants",
      "description": "Events about the plants of the store."
    }
  ],
  "paths": {},
  "webhooks": {
    "/plant/webhook": {
      "post": {
        "summary": "New Plant",
        "operationId": "newPlant",
        "description": "Information about a new plant added to the store",
        "tags": [
          "plants"
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/WebhookId"
          },
          {
            "$ref": "#/components/parameters/WebhookTimestamp"
          },
          {
            "$ref": "#/components/parameters/WebhookSignature"
          }
        ],
        "requestBody": {
          "description": "The plant that was added to the store.",
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/NewPlant"
              },
              "examples": {
                "basic": {
                  "summary": "A plant with a tag",
                  "value": {
                    "id": 1,
                    "name": "Monstera deliciosa",
                    "tag": "tropical"
                  }
                },
                "untagged": {
                  "summary": "A plant without a tag",
                  "value": {
                    "id": 42,
                    "name": "Ficus lyrata"
                  }
                }
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "Received. The event is stored (or was already stored under the same `webhook-id`).",
            "headers": {
              "webhook-duplicate": {
                "description": "`true` when an event with this `webhook-id` was already stored: this delivery had no second effect. Absent otherwise.",
                "schema": {
                  "type": "string",
                  "const": "true"
                }
              }
            }
          },
          "400": {
            "description": "Malformed JSON (or a body that is not UTF-8), a malformed `Authorization` header (not exactly one token after `Bearer`, or two `Authorization` headers), or malformed Standard Webhooks headers.",
            "headers": {
              "WWW-Authenticate": {
                "description": "With a malformed `Authorization` header: `Bearer realm=\"plant-store\", error=\"invalid_request\"` (RFC 6750 §3.1).",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                },
                "example": {
                  "error": 400,
                  "message": "The body is not valid JSON: Unexpected end of JSON input. Send the plant as a JSON object."
                }
              }
            }
          },
          "401": {
            "description": "Missing or invalid bearer token (with a `WWW-Authenticate` challenge), or an invalid signature or a timestamp outside the tolerance window.",
            "headers": {
              "WWW-Authenticate": {
                "description": "`Bearer realm=\"plant-store\"`, with `error=\"invalid_token\"` when the presented token was refused (not when the token was accepted and the signature or timestamp was not).",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                },
                "example": {
                  "error": 401,
                  "message": "Missing bearer token. Send 'Authorization: Bearer <ACCESS_TOKEN>'."
                }
              }
            }
          },
          "404": {
            "description": "Unknown path.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "405": {
            "description": "Method not allowed; only `POST` is.",
            "headers": {
              "Allow": {
                "description": "Always `POST`.",
                "schema": {
                  "type": "string",
                  "const": "POST"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "408": {
            "description": "The request did not arrive in time (its headers or body came too slowly); the connection is closed.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "413": {
            "description": "The body is larger than the receiver's cap.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "415": {
            "description": "The body is not `application/json` (UTF-8), or it is compressed (`Content-Encoding`).",
            "headers": {
              "Accept-Encoding": {
                "description": "`identity`, when the body came with a `Content-Encoding`: send the signed bytes as they are.",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "422": {
            "description": "The JSON does not match `NewPlant`; the message names the JSON pointer of each problem.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                },
                "example": {
                  "error": 422,
                  "message": "/name: Required. Send a string name for the plant."
                }
              }
            }
          },
          "431": {
            "description": "The request headers are too large; the connection is closed.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "503": {
            "description": "The receiver could not store the event right now; the sender retries later.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    }
  },
  "components": {
    "securitySchemes": {
      "bearerAuth": {
        "type": "http",
        "scheme": "bearer",
        "description": "`Authorization: Bearer <ACCESS_TOKEN>` on every delivery."
      }
    },
    "parameters": {
      "WebhookId": {
        "name": "webhook-id",
        "in": "header",
        "required": false,
        "description": "Standard Webhooks message id, unique per event and the same across retries; receivers deduplicate on it. 1 to 256 visible ASCII characters (no spaces or control characters; dots allowed, as in the Standard Webhooks reference implementation).",
        "schema": {
          "type": "string",
          "minLength": 1,
          "maxLength": 256,
          "pattern": "^[\\x21-\\x7E]+$"
        },
        "example": "msg_2zQz0kUQ6yk3n8aJ5xY2c1"
      },
      "WebhookTimestamp": {
        "name": "webhook-timestamp",
        "in": "header",
        "required": false,
        "description": "Unix time in seconds at which this attempt was signed.",
        "schema": {
          "type": "string",
          "pattern": "^[0-9]+$"
        },
        "example": "1614265330"
      },
      "WebhookSignature": {
        "name": "webhook-signature",
        "in": "header",
        "required": false,
        "description": "Space-separated list of `v1,<base64>` signatures: HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}` keyed with the base64-decoded part of a `whsec_` secret. Several appear while a secret is rotated.",
        "schema": {
          "type": "string"
        },
        "example": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
      }
    },
    "schemas": {
      "Plant": {
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
      "NewPlant": {
        "allOf": [
          {
            "$ref": "#/components/schemas/Plant"
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
      "Error": {
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
} as const;
