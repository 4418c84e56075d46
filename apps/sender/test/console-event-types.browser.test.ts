// The console lists the event types the running apps serve (GET /event-types), not a list built into the page: both
// apps start on a document with two webhooks no code is written for, and the console offers, publishes, filters and
// names them. Real Chromium, the built bins on loopback.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createToken } from "@plant-store/core";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, openBrowser, seriousViolations } from "./console/browser.js";
import {
  cleanup,
  RECEIVER_BIN,
  type Running,
  SECRET,
  SENDER_BIN,
  start,
  stop,
  TOKEN,
  tempDir,
} from "./support.js";

const FIXTURE = fileURLToPath(new URL("../../../test-support/fixtures/multi-webhook.yaml", import.meta.url));
const SENDER_ADMIN = createToken();
const RECEIVER_ADMIN = createToken();
const BIG_ID = "9223372036854775807";
const WAIT = 20_000;
const NAMES = ["New Plant", "Plant Sold", "Inventory Changed"];

const available = existsSync(CHROMIUM);
if (!available && process.env.CI)
  throw new Error(`${CHROMIUM} is missing: .ci/run installs it with apt-get.`);

describe.skipIf(!available)("the console on apps started with --spec", { timeout: 120_000 }, () => {
  let receiver: Running;
  let sender: Running;
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  let senderPage: Page;
  let receiverPage: Page;
  const problems: string[] = [];

  async function login(page: Page, base: string, token: string) {
    await page.goto(`${base}/console/`);
    await page.getByLabel("Admin token").fill(token);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("button", { name: "Log out" }).waitFor({ timeout: WAIT });
  }
  const optionsOf = (page: Page, label: string) =>
    page.getByLabel(label, { exact: true }).locator("option").allTextContents();

  beforeAll(async () => {
    const dir = tempDir();
    receiver = await start(RECEIVER_BIN, [
      "--spec",
      FIXTURE,
      "--db",
      join(dir, "receiver.db"),
      "--token",
      TOKEN,
      "--secret",
      SECRET,
      "--admin-token",
      RECEIVER_ADMIN,
    ]);
    sender = await start(SENDER_BIN, [
      "--spec",
      FIXTURE,
      "--db",
      join(dir, "sender.db"),
      "--admin-token",
      SENDER_ADMIN,
      "--allow-networks",
      "127.0.0.0/8",
    ]);
    browser = await openBrowser();
    browser.context.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    senderPage = await browser.context.newPage();
    receiverPage = await browser.context.newPage();
    for (const page of [senderPage, receiverPage])
      page.on("pageerror", (error) => problems.push(error.message));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([sender && stop(sender), receiver && stop(receiver)]);
    cleanup();
  });

  it("adds a subscription that takes only Plant Sold, choosing among the sender's event types", async () => {
    await login(senderPage, sender.url, SENDER_ADMIN);
    await senderPage.getByRole("link", { name: "Subscriptions" }).click();
    const takes = senderPage.getByRole("group", { name: /Event types it receives/ });
    await takes.waitFor({ timeout: WAIT });
    expect(await takes.getByRole("checkbox").count()).toBe(3);
    for (const name of NAMES) await takes.getByRole("checkbox", { name: new RegExp(name) }).waitFor();
    expect(await seriousViolations(senderPage)).toEqual([]);
    await senderPage.getByLabel("Receiver URL").fill(`${receiver.url}/plant/webhook`);
    await takes.getByRole("checkbox", { name: /Plant Sold/ }).check();
    await senderPage.getByText("The receiver already has a token and secret").click();
    await senderPage.getByLabel("Bearer token to use").fill(TOKEN);
    await senderPage.getByLabel("Signing secret to use").fill(SECRET);
    await senderPage.getByRole("button", { name: "Add", exact: true }).click();
    await senderPage.getByText("they are shown this once").waitFor({ timeout: WAIT });
    await senderPage.getByRole("button", { name: /I have copied them/ }).click();
    const row = senderPage.locator("tbody tr").filter({ hasText: `${receiver.url}/plant/webhook` });
    await row.waitFor({ timeout: WAIT });
    expect(await row.textContent()).toContain("Plant Sold");
    expect(await row.textContent()).not.toContain("every type");
  });

  it("publishes a Plant Sold from its example; a New Plant reaches no subscription", async () => {
    await senderPage.getByRole("link", { name: "Publish" }).click();
    await senderPage.getByLabel("Event type", { exact: true }).waitFor({ timeout: WAIT });
    expect(await optionsOf(senderPage, "Event type")).toEqual(NAMES);
    await senderPage.getByLabel("Event type", { exact: true }).selectOption({ label: "Plant Sold" });
    const payload = senderPage.getByLabel(/^Plant Sold payload/);
    // The document's own example, served by the sender with the type.
    expect(JSON.parse(await payload.inputValue())).toMatchObject({ price: { currency: "EUR" } });
    await payload.fill(`{"plantId": ${BIG_ID}, "price": {"amount": 1250, "currency": "EUR"}}`);
    await senderPage.getByRole("button", { name: "Publish" }).click();
    await senderPage.getByText(/Published msg_\w+: 1 delivery\./).waitFor({ timeout: WAIT });
    expect(await seriousViolations(senderPage)).toEqual([]);

    await senderPage.getByLabel("Event type", { exact: true }).selectOption({ label: "New Plant" });
    await senderPage.getByLabel(/^New Plant payload/).fill('{"id": 5, "name": "Fern"}');
    await senderPage.getByRole("button", { name: "Publish" }).click();
    await senderPage.getByText(/Published msg_\w+: 0 deliveries\./).waitFor({ timeout: WAIT });

    await senderPage.getByRole("link", { name: "Deliveries", exact: true }).click();
    await senderPage.locator("tbody tr .badge-delivered").first().waitFor({ timeout: WAIT });
    expect(await senderPage.locator("tbody tr").count()).toBe(1);
    await senderPage.locator("tbody tr").first().locator("a").first().click();
    await senderPage
      .locator(".facts")
      .filter({ hasText: /Event type\s*Plant Sold/ })
      .waitFor({ timeout: WAIT });
    expect(await senderPage.locator("pre.json").textContent()).toContain(`"plantId": ${BIG_ID}`);
  });

  it("the receiver's console filters its events by the types it serves", async () => {
    await login(receiverPage, receiver.url, RECEIVER_ADMIN);
    const row = receiverPage.locator("tbody tr").filter({ hasText: BIG_ID });
    // The row can be drawn before the console has read the receiver's event types (it shows the type's id, plantSold,
    // until then): wait for the name, as a user would see it a moment later.
    await row.filter({ hasText: "Plant Sold" }).waitFor({ timeout: WAIT });
    expect(await row.textContent()).toContain("Plant Sold");
    expect(await optionsOf(receiverPage, "Event type")).toEqual(["any", ...NAMES]);
    await receiverPage.getByLabel("Event type", { exact: true }).selectOption({ label: "Inventory Changed" });
    await receiverPage.getByText("No Inventory Changed events yet").waitFor({ timeout: WAIT });
    await receiverPage.getByLabel("Event type", { exact: true }).selectOption({ label: "Plant Sold" });
    await row.waitFor({ timeout: WAIT });
    await row.getByRole("button").click();
    expect(await receiverPage.locator("pre.json").textContent()).toContain(`"plantId": ${BIG_ID}`);
    expect(await seriousViolations(receiverPage)).toEqual([]);
    expect(problems).toEqual([]);
  });
});
