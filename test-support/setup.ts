// Vitest setup file of every project (not published): a test file's child processes never outlive it, also when a
// test timed out before its own cleanup ran.
import { afterAll } from "vitest";
import { killTracked } from "./processes.js";

afterAll(killTracked);
