// A customer's portal link in a real browser: the console shows only its application, takes the token out of the
// address bar, and asks for a new link once it expired. The sender runs in process over a real socket, with the
// store's clock in the test's hands (a link lives at least a minute).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "@plant-store/store";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSender, type Sender } from "../src/index.js";
import { CHROMIUM, openBrowser, screenshotDir, seriousViolations } from "./console/browser.js";
import { ADMIN, api } from "./support.js";

const WAIT = 20_000;
const available = existsSync(CHROMIUM);
if (!available && process.env.CI)
  throw new Error(`${CHROMIUM} is missing: .ci/run installs it with apt-get.`);

describe.skipIf(!available)("a portal link in Chromium", { timeout: 120_000 }, () => {
  let dir: string;
  let store: Store;
  let sender: Sender;
  let base: string;
  let shiftMs = 0;
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  let page: Page;
  const shots = screenshotDir();
  const problems: string[] = [];
  const ids = {
    a: { app: "", sub: "", url: "" },
    b: { app: "", sub: "", url: "", delivery: 0, message: "" },
  };
  let link = { url: "", token: "" };

  /** B's ids, URL and payload: not one may be on any page A's link reaches. */
  const bMarks = () => [ids.b.app, "cust-b", ids.b.sub, ids.b.url, ids.b.message, "PAYLOAD-B"];
  const shows = async (text: string) => ((await page.locator("body").textContent()) ?? "").includes(text);
  /** None of B's marks, but those the address itself carries ("No subscription sub_…" names what was asked). */
  async function noneOfB() {
    const body = (await page.locator("body").textContent()) ?? "";
    for (const mark of bMarks().filter((m) => !page.url().includes(m)))
      expect(body, `${page.url()} shows ${mark}`).not.toContain(mark);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sender-portal-browser-"));
    store = await openStore({ url: join(dir, "sender.db"), now: () => Date.now() + shiftMs });
    sender = await createSender({
      adminTokens: [ADMIN],
      store,
      worker: false,
      allowNetworks: ["127.0.0.0/8"],
    });
    base = await sender.listen(0, "127.0.0.1");
    for (const key of ["a", "b"] as const) {
      const app = await api(base, "POST", "/applications", {
        uid: `cust-${key}`,
        name: `Customer ${key.toUpperCase()}`,
      });
      ids[key].app = app.body.id;
      ids[key].url = `http://127.0.0.1:9/${key}-endpoint`;
      ids[key].sub = (
        await api(base, "POST", "/subscriptions", { url: ids[key].url, application: app.body.id })
      ).body.id;
      const body = JSON.stringify({ id: 1, name: `PAYLOAD-${key.toUpperCase()}` });
      const published = await api(base, "POST", `/events?application=cust-${key}`, body);
      if (key === "b") {
        ids.b.message = published.body.messageId;
        ids.b.delivery = (await store.outbox.listDeliveries({ messageId: ids.b.message })).items[0]!.id;
      }
    }
    link = (await api(base, "POST", `/applications/${ids.a.app}/portal-link`)).body;
    browser = await openBrowser();
    page = await browser.context.newPage();
    page.on("pageerror", (error) => problems.push(error.message));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await sender?.close();
    if (!shots.keep) rmSync(shots.dir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows only A's subscriptions and deliveries, with the token gone from the address bar", async () => {
    expect(link.url).toBe(`${base}/console/#token=${link.token}`);
    await page.goto(link.url);
    await page.getByRole("heading", { name: "Subscriptions", exact: true }).waitFor({ timeout: WAIT });
    expect(page.url()).toBe(`${base}/console/#/`);
    expect(page.url()).not.toContain(link.token);
    expect(
      await page.evaluate(() => Object.values((globalThis as any).sessionStorage as Record<string, string>)),
    ).toContain(link.token);
    await page.getByText(ids.a.url).waitFor({ timeout: WAIT });
    await noneOfB();
    expect(await page.getByRole("navigation", { name: "Console" }).getByRole("link").allInnerTexts()).toEqual(
      ["Subscriptions", "Deliveries"],
    );
    expect(await shows("Customer A · webhooks")).toBe(true);
    await page.screenshot({ path: join(shots.dir, "portal-subscriptions.png"), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole("link", { name: "Deliveries" }).click();
    await page.getByRole("link", { name: ids.a.sub }).first().waitFor({ timeout: WAIT });
    await noneOfB();
    await page.screenshot({ path: join(shots.dir, "portal-deliveries.png"), fullPage: true });
  });

  it("reaches no page of B or of the operator by any address", async () => {
    const probes: [string, string | null][] = [
      [`#/subscriptions/${ids.b.sub}`, `No subscription ${ids.b.sub}`],
      [`#/deliveries/${ids.b.delivery}`, `No delivery ${ids.b.delivery}`],
      [`#/deliveries?subscriptionId=${ids.b.sub}`, null],
      [`#/subscriptions?application=cust-b`, null],
      ["#/publish", null],
      ["#/applications", null],
      ["#/", null],
    ];
    for (const [hash, refusal] of probes) {
      await page.goto(`${base}/console/${hash}`);
      await page.getByRole("navigation", { name: "Console" }).waitFor({ timeout: WAIT });
      if (refusal) await page.getByText(refusal).waitFor({ timeout: WAIT });
      else await page.getByRole("heading", { level: 1 }).waitFor({ timeout: WAIT });
      await noneOfB();
      expect(await page.getByRole("heading", { name: /Publish|Applications|Sender/ }).count(), hash).toBe(0);
    }
  });

  it("the operator's Applications page lists the customers and opens a portal link for one", async () => {
    const operator = await browser.context.browser()?.newContext();
    const own = operator ? await operator.newPage() : await browser.context.newPage();
    try {
      await own.goto(`${base}/console/`);
      await own.getByLabel("Admin token").fill(ADMIN);
      await own.getByRole("button", { name: "Log in" }).click();
      await own.getByRole("link", { name: "Applications" }).click();
      await own.getByRole("cell", { name: "cust-b" }).waitFor({ timeout: WAIT });
      await own.getByLabel("Customer id (uid)").fill("cust-c");
      await own.getByLabel("Name").fill("Customer C");
      await own.getByRole("button", { name: "Add" }).click();
      const row = own.getByRole("row", { name: /cust-c/ });
      await row.waitFor({ timeout: WAIT });
      await row.getByRole("button", { name: "Open a portal link" }).click();
      const shown = own.getByRole("textbox", { name: "Portal link" });
      await shown.waitFor({ timeout: WAIT });
      const url = await shown.inputValue();
      expect(url).toMatch(new RegExp(`^${base}/console/#token=pst_`));
      const token = url.split("#token=")[1]!;
      expect(
        (await api(base, "GET", "/session", undefined, { authorization: `Bearer ${token}` })).body,
      ).toMatchObject({
        role: "portal",
        application: { uid: "cust-c" },
      });
      await own.screenshot({ path: join(shots.dir, "operator-applications.png"), fullPage: true });
      expect(await seriousViolations(own)).toEqual([]);
    } finally {
      await own.close();
      await operator?.close();
    }
  });

  it("asks for a new link once the link expired", async () => {
    shiftMs = 2 * 3_600_000;
    await page.goto(`${base}/console/#/deliveries`);
    await page.reload();
    await page.getByRole("heading", { name: "Ask for a new link" }).waitFor({ timeout: WAIT });
    expect(await page.getByLabel("Admin token").count()).toBe(0);
    expect(
      await page.evaluate(() => Object.values((globalThis as any).sessionStorage as Record<string, string>)),
    ).not.toContain(link.token);
    await page.screenshot({ path: join(shots.dir, "portal-expired.png"), fullPage: true });
    expect(problems).toEqual([]);
  });
});
