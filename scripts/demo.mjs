#!/usr/bin/env node
// The README's main job. Until the receiver and sender apps exist, it says so honestly.
console.log("The receiver and sender apps are not written yet: there is no end-to-end demo to run.");
console.log("What exists: @plant-store/spec (openapi.yaml, generated types, examples). Run `npm test`.");
