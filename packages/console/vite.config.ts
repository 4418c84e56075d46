import { defineConfig } from "vite";

// The single-page app under src/ui, built to dist/ui and served by the apps at /console/ (see src/server).
export default defineConfig({
  root: "src/ui",
  base: "/console/",
  // The browser bundle takes @plant-store/spec from its TypeScript sources, like the tests do.
  resolve: { conditions: ["@plant-store/source"] },
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
