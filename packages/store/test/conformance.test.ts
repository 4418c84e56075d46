import { afterEach, beforeEach, describe, it } from "vitest";
import { applicationConformance } from "./conformance/applications.js";
import { backlogConformance } from "./conformance/backlog.js";
import { batchConformance } from "./conformance/batch.js";
import { consumeConformance } from "./conformance/consume.js";
import { destinationConformance } from "./conformance/destinations.js";
import { inboxConformance } from "./conformance/inbox.js";
import { migrationConformance } from "./conformance/migrations.js";
import { operationalConformance } from "./conformance/operational.js";
import { outboxConformance } from "./conformance/outbox.js";
import { retentionConformance } from "./conformance/retention.js";
import { subscriptionOptionConformance } from "./conformance/subscription-options.js";
import { subscriptionConformance } from "./conformance/subscriptions.js";
import { BACKENDS, type TestBackend } from "./support/backends.js";

// One suite, every backend: SQLite always, PostgreSQL when PLANT_STORE_TEST_PG_URL is set. Each
// test gets its own database (a temp file, or a schema created and dropped around it).
for (const { name, create, skip } of BACKENDS) {
  if (skip) {
    console.warn(
      `[store conformance] ${name}: SKIPPED — set PLANT_STORE_TEST_PG_URL=postgres://… to run it.`,
    );
    describe(name, () => {
      it.skip(`${name}: skipped, set PLANT_STORE_TEST_PG_URL`, () => {});
    });
    continue;
  }
  describe(name, () => {
    let current: TestBackend | undefined;
    beforeEach(() => {
      current = create();
    });
    afterEach(async () => {
      await current?.cleanup();
      current = undefined;
    });
    const backend = () => current as TestBackend;
    inboxConformance(backend);
    subscriptionConformance(backend);
    subscriptionOptionConformance(backend);
    applicationConformance(backend);
    outboxConformance(backend);
    operationalConformance(backend);
    batchConformance(backend);
    destinationConformance(backend);
    consumeConformance(backend);
    migrationConformance(backend, create);
    backlogConformance(backend);
    retentionConformance(backend);
  });
}
