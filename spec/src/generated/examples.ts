// generated — do not edit. Source: spec/examples/. Regenerate: pnpm --filter @plant-store/spec gen

import type { ExamplePayload } from "../examples-types.js";

/** Example New Plant payloads, exactly as they travel on the wire (see spec/examples/README.md). */
export const examples: readonly ExamplePayload[] = [
  {
    "name": "basic",
    "group": "valid",
    "raw": "{ \"id\": 1, \"name\": \"Monstera deliciosa\", \"tag\": \"tropical\" }"
  },
  {
    "name": "empty-name",
    "group": "valid",
    "raw": "{ \"id\": 0, \"name\": \"\" }"
  },
  {
    "name": "exponent-id",
    "group": "valid",
    "raw": "{ \"id\": 1e3, \"name\": \"Exponent id\" }"
  },
  {
    "name": "extra-fields",
    "group": "valid",
    "raw": "{ \"id\": 3, \"name\": \"Calathea\", \"tag\": \"shade\", \"color\": \"green\" }"
  },
  {
    "name": "max-safe-id",
    "group": "valid",
    "raw": "{ \"id\": 9007199254740991, \"name\": \"Largest safe id\" }"
  },
  {
    "name": "negative-id",
    "group": "valid",
    "raw": "{ \"id\": -5, \"name\": \"Negative id\" }"
  },
  {
    "name": "unicode-name",
    "group": "valid",
    "raw": "{ \"id\": 7, \"name\": \"Žlutá růže 🌹 薔薇\", \"tag\": \"バラ\" }"
  },
  {
    "name": "untagged",
    "group": "valid",
    "raw": "{ \"id\": 42, \"name\": \"Ficus lyrata\" }"
  },
  {
    "name": "id-beyond-2-53",
    "group": "lossless",
    "raw": "{ \"id\": 9007199254740993, \"name\": \"Beyond 2^53\" }"
  },
  {
    "name": "max-int64",
    "group": "lossless",
    "raw": "{ \"id\": 9223372036854775807, \"name\": \"Largest int64\" }"
  },
  {
    "name": "min-int64",
    "group": "lossless",
    "raw": "{ \"id\": -9223372036854775808, \"name\": \"Smallest int64\" }"
  },
  {
    "name": "array",
    "group": "invalid",
    "raw": "[{ \"id\": 1, \"name\": \"Array\" }]"
  },
  {
    "name": "fractional-id",
    "group": "invalid",
    "raw": "{ \"id\": 1.5, \"name\": \"Fractional id\" }"
  },
  {
    "name": "id-as-string",
    "group": "invalid",
    "raw": "{ \"id\": \"1\", \"name\": \"String id\" }"
  },
  {
    "name": "id-beyond-int64",
    "group": "invalid",
    "raw": "{ \"id\": 9223372036854775808, \"name\": \"Beyond int64\" }"
  },
  {
    "name": "missing-id",
    "group": "invalid",
    "raw": "{ \"name\": \"No id\" }"
  },
  {
    "name": "missing-name",
    "group": "invalid",
    "raw": "{ \"id\": 1, \"tag\": \"tropical\" }"
  },
  {
    "name": "name-as-number",
    "group": "invalid",
    "raw": "{ \"id\": 1, \"name\": 42 }"
  },
  {
    "name": "null-tag",
    "group": "invalid",
    "raw": "{ \"id\": 1, \"name\": \"Null tag\", \"tag\": null }"
  },
  {
    "name": "truncated-json",
    "group": "invalid",
    "raw": "{\"id\":1,\"name\":\"Broken\","
  }
];
