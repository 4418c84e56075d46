import { builtinModules } from "node:module";
import { defineConfig, type Plugin } from "vite";

/**
 * The page imports @plant-store/admin-api's client and schemas (and, through them, @plant-store/core): a Node
 * built-in reaching the bundle fails the build here, instead of Vite swapping in an empty module that breaks at run
 * time in the browser.
 */
const browserOnly: Plugin = {
  name: "plant-store:browser-only",
  enforce: "pre",
  resolveId(id, importer) {
    if (id.startsWith("node:") || builtinModules.includes(id)) {
      this.error(`${id} (imported by ${importer}) is Node-only; the console runs in a browser.`);
    }
    return null;
  },
};

// The single-page app under src/ui, built to dist/ui and served by the apps at /console/ (see src/server).
export default defineConfig({
  root: "src/ui",
  base: "/console/",
  // The browser bundle takes @plant-store/spec from its TypeScript sources, like the tests do.
  resolve: { conditions: ["@plant-store/source"] },
  plugins: [browserOnly],
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "../../dist/ui",
    emptyOutDir: true,
    target: "es2022",
    // No inline script and no data: URL may be emitted: the apps serve the console with a strict CSP.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
