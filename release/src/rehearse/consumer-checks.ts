import { SCOPE } from "../registry.js";
import { cliIn, type RunningApp, startHealthy } from "./bins.js";
import { command, env } from "./commands.js";
import type { RehearsalContext } from "./context.js";
import { packageNames, versionOf } from "./packages.js";
import { step } from "./steps.js";
import { tsc } from "./tsc.js";

/**
 * Uses the consumer as a user would: it type-checks strictly, imports every public entry, signs and verifies,
 * runs the CLI, and starts both apps and sends one signed event from the CLI to the receiver.
 *
 * @example
 * ```ts
 * await checkConsumer(ctx, consumer, "release 1");
 * ```
 */
export async function checkConsumer(ctx: RehearsalContext, dir: string, label: string): Promise<void> {
  const names = packageNames(ctx);
  // The type-check (CPU-bound) runs beside the run-time checks (mostly process starts).
  await Promise.all([
    step(
      ctx,
      `${label}: tsc --noEmit of a strict consumer (contract types, core's sign/verify, store, adapters)`,
      "the .d.ts files of the package named in tsc's error do not match what they export",
      () => tsc(ctx, dir, "tsconfig.json"),
    ),
    (async () => {
      await step(
        ctx,
        `${label}: import every public entry of every package; sign → verify; SQLite store`,
        "the package named in the error is missing a file in `files` or a dependency",
        () =>
          command(ctx, process.execPath, ["smoke.mjs", JSON.stringify(names)], { cwd: dir, env: env(ctx) }),
      );
      await checkCli(ctx, dir, label);
      await checkBins(ctx, dir, label, true);
    })(),
  ]);
}

/** `npx plant-store --version` in the consumer prints `expected` (default: the CLI's version in the copy). */
export async function checkCli(
  ctx: RehearsalContext,
  dir: string,
  label: string,
  expected = versionOf(ctx, `${SCOPE}/cli`),
): Promise<void> {
  await step(
    ctx,
    `${label}: npx plant-store --version prints the published version`,
    "check the CLI's bin entry and that dist/bin.js starts with a shebang",
    async () => {
      const out = (
        await command(ctx, "npx", ["--no-install", "plant-store", "--version"], {
          cwd: dir,
          env: env(ctx),
          timeout: 120_000,
          stdout: true,
        })
      ).trim();
      if (out !== expected) throw new Error(`printed ${JSON.stringify(out)}, expected ${expected}`);
    },
    `${SCOPE}/cli`,
  );
}

interface Credentials {
  token: string;
  admin: string;
  secret: string;
}

/** Both apps start and answer /healthz; one signed New Plant goes CLI → receiver and is stored. */
async function checkBins(ctx: RehearsalContext, dir: string, label: string, withCli: boolean) {
  const [token, admin, secret] = (await Promise.all([
    cliIn(ctx, dir, withCli, ["token", "create", "--json"]),
    cliIn(ctx, dir, withCli, ["token", "create", "--json"]),
    cliIn(ctx, dir, withCli, ["secret", "create", "--json"]),
  ]).then((outs) => outs.map((out) => JSON.parse(out)))) as [
    { token: string },
    { token: string },
    { secret: string },
  ];
  const credentials = { token: token.token, admin: admin.token, secret: secret.secret };
  // The two apps start side by side.
  const [receiver] = await Promise.all([
    startReceiver(ctx, dir, label, credentials),
    checkSender(ctx, dir, label, credentials),
  ]);
  await sendOne(ctx, dir, label, withCli, credentials, receiver);
}

function startReceiver(
  ctx: RehearsalContext,
  dir: string,
  label: string,
  c: Credentials,
): Promise<RunningApp> {
  return step(
    ctx,
    `${label}: plant-store-receiver starts and answers /healthz`,
    "run the receiver bin by hand in a project that installed only it, and read its error",
    () =>
      startHealthy(ctx, dir, "plant-store-receiver", [
        "--token",
        c.token,
        "--admin-token",
        c.admin,
        "--secret",
        c.secret,
        "--db",
        ":memory:",
        "--log-level",
        "info",
      ]),
    `${SCOPE}/receiver`,
  );
}

function checkSender(ctx: RehearsalContext, dir: string, label: string, c: Credentials): Promise<void> {
  return step(
    ctx,
    `${label}: plant-store-sender starts and answers /healthz`,
    "run the sender bin by hand in a project that installed only it, and read its error",
    async () => {
      const app = await startHealthy(ctx, dir, "plant-store-sender", [
        "--admin-token",
        c.admin,
        "--db",
        ":memory:",
      ]);
      await app.stop();
    },
    `${SCOPE}/sender`,
  );
}

function sendOne(
  ctx: RehearsalContext,
  dir: string,
  label: string,
  withCli: boolean,
  c: Credentials,
  receiver: RunningApp,
): Promise<void> {
  return step(
    ctx,
    `${label}: one signed New Plant goes CLI → receiver and is stored`,
    "run `npx plant-store send <receiver>/plant/webhook --token … --secret …` by hand and read both sides' errors",
    async () => {
      const sent = JSON.parse(
        await cliIn(ctx, dir, withCli, [
          "send",
          `${receiver.url}/plant/webhook`,
          "--token",
          c.token,
          "--secret",
          c.secret,
          "--name",
          "Rehearsal Fern",
          "--json",
        ]),
      ) as { status: number };
      if (sent.status !== 200) throw new Error(`the receiver answered ${sent.status}`);
      const events = (await (
        await fetch(`${receiver.url}/events`, { headers: { authorization: `Bearer ${c.admin}` } })
      ).json()) as { data: { body?: unknown }[] };
      if (events.data.length !== 1) throw new Error(`the receiver holds ${events.data.length} events, not 1`);
      await receiver.stop();
    },
    `${SCOPE}/cli`,
  );
}
