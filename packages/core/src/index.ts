/**
 * `@plant-store/core`: pure logic for the New Plant webhook.
 *
 * @module
 */
export { type ErrorBody, HttpError, PlantStoreError } from "./errors.js";
