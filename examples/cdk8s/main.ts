/** `npx tsx examples/cdk8s/main.ts [outdir]`: synthesizes the example into outdir (default cdk8s.out). */
import { buildApp } from "./app.js";

buildApp(process.argv[2] ?? "cdk8s.out").synth();
