// Module hooks that let a plain `node` child process (Node 20 has no --experimental-strip-types)
// import the store's TypeScript sources: `.js` specifiers fall back to the `.ts` file beside them,
// and `.ts` files are transpiled with the workspace's own TypeScript (types erased, nothing
// bundled). Run with `node --conditions=@plant-store/source --import ./register-ts.mjs child.mjs`.
import { readFile } from "node:fs/promises";
import ts from "typescript";

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const relative = specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("file:");
    if (relative && specifier.endsWith(".js") && context.parentURL?.endsWith(".ts")) {
      return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
    }
    throw error;
  }
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith(".ts")) return nextLoad(url, context);
  const source = await readFile(new URL(url), "utf8");
  const { outputText } = ts.transpileModule(source, {
    fileName: url,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      inlineSourceMap: true,
    },
  });
  return { format: "module", source: outputText, shortCircuit: true };
}
