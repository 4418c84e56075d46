// The console of both apps, in a real browser, against the built bins on loopback (SQLite temp files).
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createToken } from "@plant-store/core";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, openBrowser, screenshotDir, seriousViolations } from "./console/browser.js";
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

const SENDER_ADMIN = createToken();
const RECEIVER_ADMIN = createToken();
const BIG_ID = "9223372036854775807"; // int64 max, far beyond 2^53: JSON.parse would print 9223372036854776000
const WAIT = 20_000;

/** In front of the receiver: relays requests, or answers 500 while `failing`. */
function flakyProxy(target: string): Promise<{ url: string; server: Server; setFailing(on: boolean): void }> {
  let failing = false;
  const server = createServer((req, res) => {
    if (failing) {
      req.resume();
      res.writeHead(500, { "content-type": "text/plain" }).end("boom: the plant database is down");
      return;
    }
    const upstream = httpRequest(
      `${target}${req.url}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        server,
        setFailing: (on) => {
          failing = on;
        },
      }),
    ),
  );
}

const available = existsSync(CHROMIUM);
// Skipped on a developer's machine without Chromium (apt-get install chromium); CI installs it and must run this.
if (!available && process.env.CI)
  throw new Error(`${CHROMIUM} is missing: .ci/run installs it with apt-get.`);

// Each step drives several pages at two widths with axe-core: minutes on a slow machine, not seconds.
describe.skipIf(!available)("the console in Chromium", { timeout: 120_000 }, () => {
  let receiver: Running;
  let sender: Running;
  let proxy: Awaited<ReturnType<typeof flakyProxy>>;
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  let senderPage: Page;
  let receiverPage: Page;
  const problems: string[] = [];
  /** The requests a step made fail on purpose: their failures are not problems. */
  const outage = new Set<string>();
  const shots = screenshotDir();

  async function shoot(page: Page, name: string) {
    for (const [suffix, width] of [
      ["", 1280],
      ["-mobile", 390],
    ] as const) {
      await page.setViewportSize({ width, height: suffix ? 844 : 900 });
      await page.screenshot({ path: join(shots.dir, `${name}${suffix}.png`), fullPage: !suffix });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }
  async function accessible(page: Page) {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await seriousViolations(page), `axe at ${width}px on ${page.url()}`).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }
  async function login(page: Page, base: string, token: string) {
    await page.goto(`${base}/console/`);
    await page.getByLabel("Admin token").fill(token);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("button", { name: "Log out" }).waitFor({ timeout: WAIT });
  }

  beforeAll(async () => {
    const dir = tempDir();
    receiver = await start(RECEIVER_BIN, [
      "--db",
      join(dir, "receiver.db"),
      "--token",
      TOKEN,
      "--secret",
      SECRET,
      "--admin-token",
      RECEIVER_ADMIN,
      "--log-level",
      "debug",
    ]);
    proxy = await flakyProxy(receiver.url);
    sender = await start(SENDER_BIN, [
      "--db",
      join(dir, "sender.db"),
      "--admin-token",
      SENDER_ADMIN,
      "--allow-networks",
      "127.0.0.0/8",
      "--schedule",
      "0,300,300,300",
      "--log-level",
      "debug",
    ]);
    browser = await openBrowser();
    browser.context.on("console", (message) => {
      if (message.type() === "error" && !outage.has(message.location().url)) problems.push(message.text());
    });
    senderPage = await browser.context.newPage();
    receiverPage = await browser.context.newPage();
    for (const page of [senderPage, receiverPage])
      page.on("pageerror", (error) => problems.push(error.message));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([sender && stop(sender), receiver && stop(receiver)]);
    await new Promise((resolve) => proxy?.server.close(resolve));
    if (!shots.keep) rmSync(shots.dir, { recursive: true, force: true });
    cleanup();
  });

  it("refuses a wrong admin token in words", async () => {
    await senderPage.goto(`${sender.url}/console/`);
    await senderPage.getByLabel("Admin token").fill("psk_not_the_token");
    await senderPage.getByRole("button", { name: "Log in" }).click();
    await senderPage
      .getByRole("alert")
      .filter({ hasText: "The admin token is not accepted." })
      .waitFor({ timeout: WAIT });
    expect(await senderPage.getByRole("alert").textContent()).toContain("--admin-token");
    await shoot(senderPage, "login-refused");
    await accessible(senderPage);
  });

  it("logs in to the receiver with the keyboard alone, and shows its empty state and health", async () => {
    await receiverPage.goto(`${receiver.url}/console/`);
    await receiverPage.getByLabel("Admin token").waitFor({ timeout: WAIT });
    await receiverPage.keyboard.press("Tab");
    expect(await receiverPage.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe("token");
    await receiverPage.keyboard.type(RECEIVER_ADMIN);
    await receiverPage.keyboard.press("Enter");
    await receiverPage.getByRole("button", { name: "Log out" }).waitFor({ timeout: WAIT });
    await receiverPage.getByText("No events yet").waitFor({ timeout: WAIT });
    await receiverPage.getByText("Ready.").waitFor({ timeout: WAIT });
    await receiverPage.getByText("Live: new events appear").waitFor({ timeout: WAIT });
    await accessible(receiverPage);
  });

  it("adds a subscription to the receiver, shows its credentials once, and refuses an SSRF target in words", async () => {
    await login(senderPage, sender.url, SENDER_ADMIN);
    await senderPage.getByText("No deliveries yet").waitFor({ timeout: WAIT });
    await senderPage.getByRole("link", { name: "Subscriptions" }).click();
    await senderPage.getByText("No subscriptions yet").waitFor({ timeout: WAIT });
    await accessible(senderPage);
    await senderPage.getByLabel("Receiver URL").fill(`${proxy.url}/plant/webhook`);
    await senderPage.getByText("The receiver already has a token and secret").click();
    await senderPage.getByLabel("Bearer token to use").fill(TOKEN);
    await senderPage.getByLabel("Signing secret to use").fill(SECRET);
    await senderPage.getByRole("button", { name: "Add", exact: true }).click();
    await senderPage.getByText("they are shown this once").waitFor({ timeout: WAIT });
    expect(await senderPage.getByLabel("Bearer token", { exact: true }).inputValue()).toBe(TOKEN);
    expect(await senderPage.getByLabel("Signing secret", { exact: true }).inputValue()).toBe(SECRET);
    await accessible(senderPage);
    await senderPage.getByRole("button", { name: /I have copied them/ }).click();
    await senderPage.getByRole("cell", { name: `${proxy.url}/plant/webhook` }).waitFor({ timeout: WAIT });
    await shoot(senderPage, "sender-subscriptions");

    await senderPage.locator("tbody a").first().click();
    await senderPage.getByLabel("New URL").fill("http://169.254.169.254/latest/meta-data");
    await senderPage.getByRole("button", { name: "Change URL" }).click();
    const refusal = senderPage.getByRole("alert").filter({ hasText: "The URL is refused" });
    await refusal.waitFor({ timeout: WAIT });
    expect(await refusal.textContent()).toMatch(/169\.254\.169\.254/);
    await shoot(senderPage, "sender-subscription");
    await accessible(senderPage);

    await senderPage.getByLabel("Reason (optional)").fill("receiver maintenance");
    await senderPage.getByRole("button", { name: "Disable" }).click();
    await senderPage.locator(".facts .badge-disabled").waitFor({ timeout: WAIT });
    expect(await senderPage.locator(".facts").textContent()).toContain("receiver maintenance");
    await senderPage.getByRole("button", { name: "Enable" }).click();
    await senderPage.locator(".facts .badge-enabled").waitFor({ timeout: WAIT });
    await senderPage.getByLabel(/Old secret kept for/).fill("3600");
    await senderPage.getByRole("button", { name: "Rotate secret" }).click();
    await senderPage.getByText("the old one still signs for 3600 seconds").waitFor({ timeout: WAIT });
    expect(await senderPage.getByLabel("New signing secret").inputValue()).toMatch(/^whsec_/);
    await senderPage
      .locator(".facts")
      .filter({ hasText: /Signing secrets in use\s*2/ })
      .waitFor({ timeout: WAIT });
  });

  it("sets a subscription's endpoint options in its form, as the admin API then reads them; a reserved header is refused by name", async () => {
    const admin = { authorization: `Bearer ${SENDER_ADMIN}` };
    const list = (await (await fetch(`${sender.url}/subscriptions`, { headers: admin })).json()) as {
      data: { id: string }[];
    };
    const id = list.data[0]?.id as string;
    const form = senderPage.locator("form").filter({ hasText: "Details and endpoint options" });
    await form.locator("#edit-headers").fill("webhook-signature: v1,forged");
    await form.getByRole("button", { name: "Save" }).click();
    const refused = senderPage.getByRole("alert").filter({ hasText: "webhook-signature" });
    await refused.waitFor({ timeout: WAIT });
    await shoot(senderPage, "sender-endpoint-options-refused");
    const subscription = async () =>
      (await (await fetch(`${sender.url}/subscriptions/${id}`, { headers: admin })).json()) as Record<
        string,
        unknown
      >;
    expect((await subscription()).headerNames).toEqual([]);

    await form.locator("#edit-uid").fill("orders-eu");
    await form.locator("#edit-description").fill("Orders team, EU region");
    await form.locator("#edit-metadata").fill("team=orders\nregion=eu");
    await form.locator("#edit-rateLimit").fill("5");
    await form.locator("#edit-headers").fill("x-tenant: acme\nX-Route: blue");
    await form.getByRole("button", { name: "Save" }).click();
    await senderPage.getByText("The subscription is changed.").waitFor({ timeout: WAIT });
    const facts = senderPage.locator(".facts");
    await facts.filter({ hasText: "5 per second" }).waitFor({ timeout: WAIT });
    expect(await facts.textContent()).toMatch(
      /orders-eu[\s\S]*Orders team, EU region[\s\S]*team=orders, region=eu/,
    );
    expect(await facts.textContent()).toMatch(/x-tenant, x-route/);
    expect(await subscription()).toMatchObject({
      uid: "orders-eu",
      description: "Orders team, EU region",
      metadata: { team: "orders", region: "eu" },
      rateLimit: 5,
      headerNames: ["x-tenant", "x-route"],
    });
    await shoot(senderPage, "sender-endpoint-options");
    await accessible(senderPage);

    // The boxes take the limit and the headers off again, so the steps after this one deliver at full speed.
    await form.getByLabel("Remove the rate limit").check();
    await form.getByLabel("Remove every header").check();
    await form.getByRole("button", { name: "Save" }).click();
    await facts.filter({ hasText: /Rate limit\s*none/ }).waitFor({ timeout: WAIT });
    expect(await (await fetch(`${sender.url}/subscriptions/${id}`, { headers: admin })).json()).toMatchObject(
      {
        rateLimit: null,
        headerNames: [],
      },
    );
  });

  it("publishes, and the delivery turns delivered without a reload; the receiver shows it live, id exact", async () => {
    await senderPage.evaluate(() => {
      (globalThis as any).sameDocument = true;
    });
    await senderPage.getByRole("link", { name: "Publish" }).click();
    await senderPage
      .getByLabel(/New Plant payload/)
      .fill(`{"id": ${BIG_ID}, "name": "Monstera deliciosa", "tag": "tropical"}`);
    await senderPage.getByRole("button", { name: "Publish" }).click();
    await senderPage.getByText(/Published msg_\w+: 1 delivery/).waitFor({ timeout: WAIT });
    await senderPage.getByRole("link", { name: "See its deliveries" }).click();
    await senderPage.locator("tbody tr .badge-delivered").first().waitFor({ timeout: WAIT });
    expect(await senderPage.evaluate(() => (globalThis as any).sameDocument)).toBe(true);
    await shoot(senderPage, "sender-deliveries");
    await accessible(senderPage);

    // The receiver's page has been open since before the publish: the event arrives over the stream.
    const row = receiverPage.locator("tbody tr").filter({ hasText: BIG_ID });
    await row.waitFor({ timeout: WAIT });
    await row.getByRole("button").click();
    const payload = receiverPage.locator("pre.json");
    expect(await payload.textContent()).toContain(`"id": ${BIG_ID}`);
    expect(
      await receiverPage.locator("section").filter({ hasText: "Headers" }).last().textContent(),
    ).toContain("webhook-timestamp");
    await shoot(receiverPage, "receiver-events");
    await accessible(receiverPage);
    await receiverPage.getByLabel("Webhook id or payload contains").fill("no such plant");
    await receiverPage.getByText("No loaded event matches the filter").waitFor({ timeout: WAIT });
    await receiverPage.getByLabel("Webhook id or payload contains").fill("monstera");
    await row.waitFor({ timeout: WAIT });
  });

  it("says when the deliveries cannot be updated, keeps showing the last answer, and recovers by itself", async () => {
    await senderPage.getByRole("link", { name: "Deliveries", exact: true }).click();
    await senderPage.locator("tbody tr .badge-delivered").first().waitFor({ timeout: WAIT });
    await senderPage
      .getByText("Updates every 2 seconds while this tab is visible.")
      .waitFor({ timeout: WAIT });
    const down = "The sender is restarting (simulated).";
    await senderPage.route(/\/deliveries\?/, (route) => {
      outage.add(route.request().url());
      return route.fulfill({
        status: 503,
        contentType: "application/json",
        body: JSON.stringify({ error: "unavailable", message: down }),
      });
    });
    const alert = senderPage.getByRole("alert").filter({ hasText: down });
    await alert.waitFor({ timeout: WAIT });
    expect(await alert.textContent()).toBe(`${down} Trying again every 2 seconds.`);
    expect(await senderPage.locator("tbody tr .badge-delivered").count()).toBeGreaterThan(0);
    await accessible(senderPage);
    await senderPage.unroute(/\/deliveries\?/);
    await alert.waitFor({ state: "detached", timeout: WAIT });
    expect(await senderPage.getByRole("alert").count()).toBe(0);
  });

  it("shows attempts piling up with the receiver's 500 and body, then resend delivers", async () => {
    proxy.setFailing(true);
    await senderPage.getByRole("link", { name: "Publish" }).click();
    await senderPage.getByLabel(/New Plant payload/).fill('{"id": 2, "name": "Fern"}');
    await senderPage.getByRole("button", { name: "Publish" }).click();
    await senderPage.getByText(/Published msg_\w+: 1 delivery/).waitFor({ timeout: WAIT });
    await senderPage.getByRole("link", { name: "See its deliveries" }).click();
    await senderPage.locator("tbody tr").first().locator("a").first().click();
    await senderPage.locator("tr[data-attempt='2']").waitFor({ timeout: WAIT });
    await senderPage.locator(".badge-failed").waitFor({ timeout: WAIT });
    const attempts = senderPage.locator("tr[data-attempt]");
    expect(await attempts.count()).toBe(4);
    for (const text of await attempts.allTextContents()) {
      expect(text).toContain("500");
      expect(text).toContain("boom: the plant database is down");
    }
    await shoot(senderPage, "sender-delivery-failed");
    await accessible(senderPage);

    proxy.setFailing(false);
    await senderPage.getByRole("button", { name: "Resend" }).click();
    await senderPage.locator(".badge-delivered").waitFor({ timeout: WAIT });
    expect(await senderPage.locator("tr[data-attempt='5']").textContent()).toContain("200");
    await senderPage.getByRole("link", { name: "Overview" }).click();
    await senderPage.locator("figure.chart").filter({ hasText: "2 delivered" }).waitFor({ timeout: WAIT });
    await shoot(senderPage, "sender-overview");
    await accessible(senderPage);
  });

  it("recovers the failed deliveries of a subscription since a time", async () => {
    proxy.setFailing(true);
    await senderPage.getByRole("link", { name: "Publish" }).click();
    await senderPage.getByLabel(/New Plant payload/).fill('{"id": 3, "name": "Cactus"}');
    await senderPage.getByRole("button", { name: "Publish" }).click();
    await senderPage.getByText(/Published msg_\w+: 1 delivery/).waitFor({ timeout: WAIT });
    await senderPage.getByRole("link", { name: "Deliveries", exact: true }).click();
    await senderPage.getByLabel("State").selectOption("failed");
    // A row shown as failed: until the filter's first answer arrives, the table still lists the delivery while it
    // retries (500, pending), and a click there lands on a row the filtered table then removes.
    const failedRow = senderPage
      .locator("tbody tr")
      .filter({ has: senderPage.locator(".badge-failed") })
      .filter({ hasText: "500" })
      .first();
    await failedRow.waitFor({ timeout: WAIT });
    proxy.setFailing(false);
    await failedRow.getByRole("link").nth(1).click();
    const hourAgo = new Date(Date.now() - 3_600_000 - new Date().getTimezoneOffset() * 60_000);
    await senderPage
      .getByLabel(/Re-send failed deliveries created since/)
      .fill(hourAgo.toISOString().slice(0, 16));
    await senderPage.getByRole("button", { name: "Recover" }).click();
    await senderPage
      .getByText(/^1 failed deliveries since .* are queued again\.$/)
      .waitFor({ timeout: WAIT });
    await senderPage.getByRole("link", { name: "Deliveries to this subscription" }).click();
    await senderPage.locator("tbody tr .badge-delivered").nth(2).waitFor({ timeout: WAIT });
    expect(await senderPage.locator("tbody tr .badge-failed").count()).toBe(0);
  });

  it("publishes a file of events (NDJSON) in batches; a file with a line it cannot read sends nothing", async () => {
    await senderPage.getByRole("link", { name: "Publish" }).click();
    const lines = [
      `{"id": ${BIG_ID}, "name": "Largest"}`,
      '{"payload": {"id": 2, "name": "Moss"}, "idempotencyKey": "file-2"}',
      "",
      '{"id": 3, "name": "Fern"}',
    ];
    const upload = senderPage.getByLabel(/NDJSON file/);
    await upload.setInputFiles({
      name: "plants.ndjson",
      mimeType: "application/x-ndjson",
      buffer: Buffer.from(lines.join("\n")),
    });
    await senderPage.getByRole("button", { name: "Send file" }).click();
    await senderPage
      .getByText("Published 3 events from plants.ndjson: 3 new, 0 duplicates.")
      .waitFor({ timeout: WAIT });
    expect(await senderPage.getByLabel("Events published").getAttribute("value")).toBe("3");
    await accessible(senderPage);

    await upload.setInputFiles({
      name: "broken.ndjson",
      mimeType: "application/x-ndjson",
      buffer: Buffer.from('{"id": 4, "name": "Fern"}\n{not json\n'),
    });
    await senderPage.getByRole("button", { name: "Send file" }).click();
    const alert = senderPage.getByRole("alert");
    await alert.waitFor({ timeout: WAIT });
    expect(await alert.textContent()).toMatch(
      /1 line of the file cannot be published; nothing was sent: line 2: not JSON/,
    );
  });

  it("never puts a token in a URL, in localStorage or in a log line, and breaks no CSP rule", async () => {
    for (const [page, token] of [
      [senderPage, SENDER_ADMIN],
      [receiverPage, RECEIVER_ADMIN],
    ] as const) {
      expect(page.url()).not.toContain(token);
      const local = await page.evaluate(() => JSON.stringify({ ...(globalThis as any).localStorage }));
      expect(local).not.toContain(token);
      expect(local).toBe("{}");
    }
    for (const app of [sender, receiver]) {
      expect(app.output()).not.toContain(SENDER_ADMIN);
      expect(app.output()).not.toContain(RECEIVER_ADMIN);
    }
    expect(problems.filter((p) => /Content.Security.Policy|Refused to/i.test(p))).toEqual([]);
    // The only failed requests are the refusals the test asked for: the wrong token (401) and the SSRF URL (400).
    expect(problems.filter((p) => !/status of 40[01] /.test(p))).toEqual([]);
    // Logging out forgets the token in this tab.
    await senderPage.getByRole("button", { name: "Log out" }).click();
    await senderPage.getByLabel("Admin token").waitFor();
    expect(
      await senderPage.evaluate(() => JSON.stringify({ ...(globalThis as any).sessionStorage })),
    ).not.toContain(SENDER_ADMIN);
    expect(readFileSync(join(shots.dir, "sender-overview.png")).length).toBeGreaterThan(1000);
  });
});
