import * as node from "../../src/crypto/node.js";
import type { CryptoProvider } from "../../src/crypto/types.js";
import * as web from "../../src/crypto/web.js";

/** Both `#crypto` implementations, imported directly so every test runs on each regardless of conditions. */
export const implementations: readonly CryptoProvider[] = [node, web];
