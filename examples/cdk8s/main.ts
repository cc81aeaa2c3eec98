/**
 * The app cdk8s.yaml runs (`npx cdk8s synth`, which names the output directory in CDK8S_OUTDIR), or
 * `npx tsx examples/cdk8s/main.ts [outdir]`: synthesizes the example into outdir (default cdk8s.out).
 */
import { buildApp } from "./app.js";

buildApp(process.argv[2] ?? process.env.CDK8S_OUTDIR ?? "cdk8s.out").synth();
