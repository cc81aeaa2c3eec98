import { join } from "node:path";

/** The root of this repository, which the tests build, pack and point test programs at. */
export const REPOSITORY = join(import.meta.dirname, "..", "..");
