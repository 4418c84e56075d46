/**
 * `@plant-store/app-kit`: what the Plant Store apps share — configuration, logging, process lifecycle.
 *
 * @module
 */
export { ConfigError, csvList, parseConfig, type Setting, wholeNumber } from "./config.js";
export { createLogger } from "./logger.js";
export { runServer, type Server } from "./run-server.js";
