// The receiver's destinations in its console, in a real browser, against the built receiver bin (SQLite temp file).
import { existsSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createReceiverAdminClient } from "@plant-store/admin-api";
import { createToken, sign } from "@plant-store/core";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, openBrowser, screenshotDir, seriousViolations } from "./console/browser.js";
import {
  cleanup,
  RECEIVER_BIN,
  type Running,
  SECRET,
  start,
  stop,
  TOKEN,
  tempDir,
  until,
} from "./support.js";

const ADMIN = createToken();
const WAIT = 20_000;
const available = existsSync(CHROMIUM);
if (!available && process.env.CI)
  throw new Error(`${CHROMIUM} is missing: .ci/run installs it with apt-get.`);

describe.skipIf(!available)("the receiver's destinations in Chromium", { timeout: 120_000 }, () => {
  let receiver: Running;
  let rx: ReturnType<typeof createReceiverAdminClient>;
  /** The service both destinations point at: refuses (503) until told to accept. */
  const service = { accepting: false, received: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      service.received += 1;
      res.writeHead(service.accepting ? 200 : 503).end("service unavailable");
    });
  });
  const stats = async (id: string) => {
    const got = await rx.call("getDestination", { params: { id } });
    if (!got.ok) throw new Error(JSON.stringify(got));
    return got.value;
  };
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  let page: Page;
  const problems: string[] = [];
  const shots = screenshotDir();
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const db = join(tempDir(), "receiver.db");
    // One attempt per round: the refused forwards are failed at once.
    receiver = await start(RECEIVER_BIN, [
      ...["--token", TOKEN, "--secret", SECRET, "--admin-token", ADMIN, "--db", db],
      ...["--allow-networks", "127.0.0.0/8", "--schedule", "0"],
    ]);
    rx = createReceiverAdminClient({ baseUrl: receiver.url, token: ADMIN });
    for (const name of ["orders", "billing"]) {
      const created = await rx.call("createDestination", { body: { name, url } });
      if (!created.ok) throw new Error(JSON.stringify(created));
      ids[name] = created.value.id;
    }
    const body = JSON.stringify({ id: 7, name: "Fern" });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      "webhook-id": "msg_console_1",
      "webhook-timestamp": String(timestamp),
      "webhook-signature": await sign({ secret: SECRET, id: "msg_console_1", timestamp, body }),
    };
    expect((await fetch(`${receiver.url}/plant/webhook`, { method: "POST", headers, body })).status).toBe(
      200,
    );
    for (const id of Object.values(ids)) await until(async () => (await stats(id)).failed === 1);
    service.accepting = true;
    browser = await openBrowser();
    page = await browser.context.newPage();
    page.on("pageerror", (error) => problems.push(error.message));
    browser.context.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server.close(resolve));
    if (receiver) await stop(receiver);
    if (!shots.keep) rmSync(shots.dir, { recursive: true, force: true });
    cleanup();
  });

  it("lists the destinations with state, depth, lag and the failing ones; pauses, resumes and replays", async () => {
    await page.goto(`${receiver.url}/console/`);
    await page.getByLabel("Admin token").fill(ADMIN);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("link", { name: "Destinations" }).click();
    const orders = page.locator(`tr[data-destination="${ids.orders}"]`);
    await orders.waitFor({ timeout: WAIT });
    await page.getByRole("heading", { name: "Failing" }).waitFor({ timeout: WAIT });
    expect(await page.locator("section.card").first().textContent()).toMatch(
      /orders: 1 failed forward.*billing/s,
    );
    expect(await orders.locator("td").nth(4).textContent()).toBe("1");
    await orders.getByRole("button", { name: "Pause" }).click();
    await orders.getByText("paused", { exact: true }).waitFor({ timeout: WAIT });
    expect((await stats(ids.orders as string)).paused).toBe(true);
    await page.screenshot({ path: join(shots.dir, "receiver-destinations.png"), fullPage: true });
    await orders.getByRole("button", { name: "Resume" }).click();
    await orders.getByText("active", { exact: true }).waitFor({ timeout: WAIT });
    const billing = page.locator(`tr[data-destination="${ids.billing}"]`);
    await billing.getByRole("button", { name: "Replay failed" }).click();
    await page.getByText("billing: 1 failed forward queued again.").waitFor({ timeout: WAIT });
    await until(async () => {
      const billing = await stats(ids.billing as string);
      return billing.failed === 0 && billing.depth === 0;
    });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await seriousViolations(page), `axe at ${width}px`).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("shows an event's forwards with their attempts, and replays it to one destination", async () => {
    await page.getByRole("link", { name: "Events" }).click();
    await page.getByRole("button", { name: "1", exact: true }).click();
    const forward = page.locator("[data-forward]").filter({ hasText: ids.orders as string });
    await forward.waitFor({ timeout: WAIT });
    expect(await forward.locator("tbody tr td").nth(2).textContent()).toBe("503");
    expect(await forward.textContent()).toContain("503");
    await forward.getByRole("button", { name: "Replay" }).click();
    await page.getByText(`Queued again for ${ids.orders}.`).waitFor({ timeout: WAIT });
    await until(async () => (await stats(ids.orders as string)).failed === 0);
    await page.screenshot({ path: join(shots.dir, "receiver-event-forwards.png"), fullPage: true });
    expect(problems).toEqual([]);
  });
});
