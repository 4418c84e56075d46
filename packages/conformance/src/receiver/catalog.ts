import type { ReceiverCheck } from "./check.js";
import { bearerChecks } from "./checks/bearer.js";
import { deliveryChecks } from "./checks/delivery.js";
import { payloadChecks } from "./checks/payload.js";
import { signatureChecks } from "./checks/signature.js";

/** Every receiver check, in the order a run reports them. */
export const receiverChecks: readonly ReceiverCheck[] = [
  ...payloadChecks,
  ...signatureChecks,
  ...bearerChecks,
  ...deliveryChecks,
];
