// `node --import ./console-switch.mjs <app bin>`: with PLANT_STORE_BENCH_CONSOLE=off, `@plant-store/console` resolves
// to a stand-in that serves nothing (the app as it would be without the console); otherwise it resolves as usual.
// Both variants load this same hook, so they start the same loader thread and differ only in the console.
import { register } from "node:module";

register("./console-switch-hooks.mjs", import.meta.url, {
  data: { off: process.env.PLANT_STORE_BENCH_CONSOLE === "off" },
});
