/**
 * The runtime file of a first-release kind: a stack recorded by that release keeps this file's URL in its
 * state, and its resources' inputs name no kind. It serves them with the one runtime (runtime.ts).
 */
import { runtimeFor } from "./runtime.js";

const legacy = runtimeFor("stack-runtime");
export const check = legacy.check;
export const diff = legacy.diff;
export const create = legacy.create;
export const up = legacy.up;
export const read = legacy.read;
export const update = legacy.update;
export const destroy = legacy.destroy;
