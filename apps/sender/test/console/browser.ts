// A real Chromium (Debian's, never downloaded) driven by playwright-core, with axe-core injected for the
// accessibility checks, and the screenshots of the README.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

/** A browser with a fresh profile; `close()` ends it and removes the profile. */
export async function openBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), "plant-store-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** The serious and critical axe-core violations of the page as it is now (axe is evaluated, not inlined: CSP). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const result = await axe.run((globalThis as any).document, { resultTypes: ["violations"] });
    return (result.violations as any[])
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n: any) => n.target.join(" ")).join(", ")}`);
  });
  return violations;
}

/**
 * Where screenshots go: `PLANT_STORE_SCREENSHOTS` (the `screenshots` script sets docs/console), else a temp dir
 * that is removed (the test still takes them, so the script cannot rot).
 */
export function screenshotDir(): { dir: string; keep: boolean } {
  const chosen = process.env.PLANT_STORE_SCREENSHOTS;
  if (chosen) {
    mkdirSync(chosen, { recursive: true });
    return { dir: chosen, keep: true };
  }
  return { dir: mkdtempSync(join(tmpdir(), "plant-store-screens-")), keep: false };
}
