// A subscription's own fields and endpoint options (uid, description, metadata, rate limit, headers) set through the
// console's form, in a real Chromium against the built sender bin (SQLite temp file), then read back from the admin
// API; a forbidden header is refused with a 400 that names it, and the form says so.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, openBrowser, screenshotDir, seriousViolations } from "./console/browser.js";
import {
  ADMIN,
  api,
  cleanup,
  type Running,
  SECRET,
  SENDER_BIN,
  start,
  stop,
  TOKEN,
  tempDir,
} from "./support.js";

const WAIT = 20_000;
const available = existsSync(CHROMIUM);
if (!available && process.env.CI)
  throw new Error(`${CHROMIUM} is missing: .ci/run installs it with apt-get.`);

describe.skipIf(!available)("a subscription's endpoint options in the console", { timeout: 120_000 }, () => {
  let sender: Running;
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  let page: Page;
  const problems: string[] = [];
  const shots = screenshotDir();

  beforeAll(async () => {
    sender = await start(SENDER_BIN, [
      ...["--db", join(tempDir(), "sender.db"), "--admin-token", ADMIN],
      ...["--allow-networks", "127.0.0.0/8"],
    ]);
    browser = await openBrowser();
    page = await browser.context.newPage();
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(`${sender.url}/console/`);
    await page.getByLabel("Admin token").fill(ADMIN);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("button", { name: "Log out" }).waitFor({ timeout: WAIT });
    await page.getByRole("link", { name: "Subscriptions" }).click();
    await page.getByLabel("Receiver URL").waitFor({ timeout: WAIT });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (sender) await stop(sender);
    cleanup();
  });

  /** Fills the form (own token and secret, so nothing is shown once) and submits it; the create call's response. */
  async function add(url: string, options: { headers: string; uid: string }) {
    await page.getByLabel("Receiver URL").fill(url);
    const details = page.getByText(/Details and endpoint options/);
    if (!(await page.getByLabel(/^Your id for it/).isVisible())) await details.click();
    await page.getByLabel(/^Your id for it/).fill(options.uid);
    await page.getByLabel("Description").fill("Greenhouse of Acme, north site");
    await page.getByLabel(/^Metadata, one key=value/).fill("tenant=acme\nregion=eu-west");
    await page.getByLabel(/^Rate limit, deliveries per second/).fill("2.5");
    await page.getByLabel(/^Headers added to every delivery/).fill(options.headers);
    if (!(await page.getByLabel("Bearer token to use").isVisible()))
      await page.getByText("The receiver already has a token and secret").click();
    await page.getByLabel("Bearer token to use").fill(TOKEN);
    await page.getByLabel("Signing secret to use").fill(SECRET);
    const response = page.waitForResponse(
      (r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/subscriptions",
      { timeout: WAIT },
    );
    await page.getByRole("button", { name: "Add", exact: true }).click();
    const got = await response;
    return { status: got.status(), body: await got.json() };
  }

  it("sets uid, description, metadata, rate limit and headers, and the admin API returns them", async () => {
    const url = "http://127.0.0.1:9/acme/hook";
    const created = await add(url, { uid: "acme-north", headers: "X-Tenant: acme\nx-route: north, 2" });
    expect(created.status).toBe(201);
    const row = page.locator("tbody tr").filter({ hasText: url });
    await row.waitFor({ timeout: WAIT });

    const read = await api(sender.url, "GET", `/subscriptions/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      url,
      uid: "acme-north",
      description: "Greenhouse of Acme, north site",
      metadata: { tenant: "acme", region: "eu-west" },
      rateLimit: 2.5,
    });
    // The API returns the names of the added headers only (their values may be credentials); names are
    // case-insensitive.
    const names = (read.body.headerNames as string[]).map((n) => n.toLowerCase()).sort();
    expect(names).toEqual(["x-route", "x-tenant"]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("refuses a header the sender sets itself (webhook-signature) with a 400 naming it, and shows why", async () => {
    const before = await api(sender.url, "GET", "/subscriptions");
    const url = "http://127.0.0.1:9/forged/hook";
    const refused = await add(url, { uid: "forged", headers: "webhook-signature: v1,forged" });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe(400);
    expect(refused.body.message).toContain("webhook-signature");
    const alert = page.getByRole("alert");
    await alert.waitFor({ timeout: WAIT });
    expect(await alert.textContent()).toContain("webhook-signature");
    await page.screenshot({ path: join(shots.dir, "endpoint-options-refused.png"), fullPage: true });
    // Nothing was created.
    expect((await api(sender.url, "GET", "/subscriptions")).body).toEqual(before.body);
    expect(await page.locator("tbody tr").filter({ hasText: url }).count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
