// Module resolution hooks of console-switch.mjs (they run on Node's loader thread).
let off = false;
const STAND_IN = new URL("./no-console.mjs", import.meta.url).href;

export function initialize(data) {
  off = data.off;
}

export async function resolve(specifier, context, next) {
  if (off && specifier === "@plant-store/console") return { url: STAND_IN, shortCircuit: true };
  return next(specifier, context);
}
